//! JavaScript and TypeScript: entity IDs as DESIGN.md §8 defines them, and import, invoke and
//! inherit edges resolved through modules (relative, `index`, tsconfig `paths`, workspaces,
//! re-exports), receivers and declared types.

use crate::resolve::{assert_has, assert_lacks, entity_ids, graph_of, meta};

const UTIL: &str = r#"
/** Joins two paths. */
export function join(a, b) {
  return a + "/" + b;
}
export const slug = (s) => s.toLowerCase();
exports.legacy = function () { return join("a", "b"); };
const options = {};
options.vnode = function (v) { return join(v, "x"); };
export function hook(v) { return options.vnode(v); }
"#;

const MODEL: &str = r#"
import { join } from "../util";
import * as u from "../util/index.js";

export class Base {
  save() { return this.write(); }
  write() { return 1; }
}

export class User extends Base {
  constructor(name) {
    super();
    this.name = name;
  }
  get label() { return join(this.name, "x"); }
  rename(n) {
    this.save();
    u.slug(n);
    return new User(n);
  }
  static create = (n) => new User(n);
}

User.prototype.legacyName = function () { return this.name; };
"#;

const TS_SERVICE: &str = r#"
import { User } from "@app/models/user";
import type { Store } from "./store";
import Default from "./store";

export interface Repo<T> extends Iterable<T> {
  find(id: string): T;
}

export enum Color { Red, Green }

export namespace Admin {
  export function ban(u: User): void { u.rename("banned"); }
}

export function overloaded(x: string): string;
export function overloaded(x: number): number;
export function overloaded(x: any): any { return x; }

declare function ambient(x: number): void;

export class Service implements Repo<User> {
  private store: Store;
  constructor(private readonly cache: Store) {
    this.store = new Default();
  }
  find(id: string): User {
    this.store.get(id);
    this.cache.get(id);
    return new User(id);
  }
  run(): void {
    const user = this.find("1");
    user.rename("x");
    helpers.format(user);
  }
}

const helpers = {
  format(u: User) { return u.label; },
  parse: (s: string) => s,
};
"#;

const STORE: &str = r#"
export class Store {
  get(id: string) { return id; }
}
export default Store;
"#;

const OTHER: &str = r#"
export class Cache { get(k) { return k; } requeue() {} }
"#;

const OTHER2: &str = r#"
export class Queue { requeue() {} }
function drain(q) { q.requeue(); }
"#;

const TSCONFIG: &str = r#"{
  // path aliases
  "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"] }, },
}"#;

fn repo() -> Vec<(&'static str, &'static str)> {
    vec![
        ("tsconfig.json", TSCONFIG),
        ("src/util/index.js", UTIL),
        ("src/models/user.js", MODEL),
        ("src/service.ts", TS_SERVICE),
        ("src/store.ts", STORE),
        ("src/cache.js", OTHER),
        ("src/queue.js", OTHER2),
        (
            "src/reexport.ts",
            "export * from './store';\nexport { join as pathJoin } from './util';\n",
        ),
        (
            "src/use_reexport.ts",
            "import { Store, pathJoin } from './reexport';\nexport function go() { pathJoin('a', 'b'); return new Store(); }\n",
        ),
    ]
}

#[test]
fn js_ts_entity_ids() {
    let (g, _) = graph_of(&repo());
    let ids = entity_ids(&g);
    for want in [
        "src/util/index.js:join",
        "src/util/index.js:slug",
        "src/util/index.js:legacy",
        "src/util/index.js:options.vnode",
        "src/models/user.js:Base",
        "src/models/user.js:Base.save",
        "src/models/user.js:User.constructor",
        "src/models/user.js:User.label",
        "src/models/user.js:User.rename",
        "src/models/user.js:User.create",
        "src/models/user.js:User.legacyName",
        "src/service.ts:Repo",
        "src/service.ts:Repo.find",
        "src/service.ts:Color",
        "src/service.ts:Admin",
        "src/service.ts:Admin.ban",
        "src/service.ts:overloaded",
        "src/service.ts:ambient",
        "src/service.ts:Service.find",
        "src/service.ts:helpers.format",
        "src/service.ts:helpers.parse",
    ] {
        assert!(ids.iter().any(|i| i == want), "missing {want} in {ids:#?}");
    }
    // Overloads are one node; anonymous callbacks are not entities.
    assert_eq!(ids.iter().filter(|i| *i == "src/service.ts:overloaded").count(), 1);
    assert!(!ids.iter().any(|i| i.contains("anonymous")));
    // `User.prototype.legacyName` sits under the class the file defines.
    let n = g.nodes.iter().position(|n| n.id == b"src/models/user.js:User.legacyName").unwrap();
    let parent = g.nodes[n].parent as usize;
    assert_eq!(g.nodes[parent].id, b"src/models/user.js:User");
    // `options.vnode = function` is one definition under the file, its own module-level entity.
    let n = g.nodes.iter().position(|n| n.id == b"src/util/index.js:options.vnode").unwrap();
    assert_eq!(g.nodes[g.nodes[n].parent as usize].id, b"src/util/index.js");
    assert_eq!(g.nodes[n].flags & cds::graph::FLAG_OWNED, 0);
}

#[test]
fn js_ts_imports_and_reexports() {
    let (_, e) = graph_of(&repo());
    // Relative with `index` and with a `.js` extension written.
    assert_has(&e, "src/models/user.js import src/util/index.js:join");
    assert_has(&e, "src/models/user.js import src/util/index.js");
    // tsconfig `paths`.
    assert_has(&e, "src/service.ts import src/models/user.js:User");
    // A default import of a module whose default export is a class.
    assert_has(&e, "src/service.ts import src/store.ts");
    // Through `export *` and `export { x as y } from`.
    assert_has(&e, "src/use_reexport.ts import src/store.ts:Store");
    assert_has(&e, "src/use_reexport.ts:go invoke src/util/index.js:join");
    assert_has(&e, "src/use_reexport.ts:go invoke src/store.ts:Store");
}

#[test]
fn js_ts_calls_through_receivers_and_types() {
    let (_, e) = graph_of(&repo());
    assert_has(&e, "src/util/index.js:legacy invoke src/util/index.js:join 0");
    assert_has(&e, "src/util/index.js:hook invoke src/util/index.js:options.vnode 0");
    assert_has(&e, "src/models/user.js:User.label invoke src/util/index.js:join 0");
    // Inherited method through `this`.
    assert_has(&e, "src/models/user.js:User.rename invoke src/models/user.js:Base.save 0");
    assert_has(&e, "src/models/user.js:Base.save invoke src/models/user.js:Base.write 0");
    // Namespace import member, and `new`.
    assert_has(&e, "src/models/user.js:User.rename invoke src/util/index.js:slug 0");
    assert_has(&e, "src/models/user.js:User.rename invoke src/models/user.js:User 0");
    // Declared field and parameter-property types.
    assert_has(&e, "src/service.ts:Service.find invoke src/store.ts:Store.get 0");
    // A local typed by the called method's declared return type.
    assert_has(&e, "src/service.ts:Service.run invoke src/models/user.js:User.rename 0");
    assert_has(&e, "src/service.ts:Service.run invoke src/service.ts:Service.find 0");
    // An object literal's method through its name.
    assert_has(&e, "src/service.ts:Service.run invoke src/service.ts:helpers.format 0");
    // Typed parameter in a namespace function.
    assert_has(&e, "src/service.ts:Admin.ban invoke src/models/user.js:User.rename 0");
    // Inheritance: extends and implements.
    assert_has(&e, "src/models/user.js:User inherit src/models/user.js:Base");
    assert_has(&e, "src/service.ts:Service inherit src/service.ts:Repo");
}

#[test]
fn js_unknown_receivers_are_not_linked_repository_wide() {
    let (_, e) = graph_of(&repo());
    // `q.requeue()` in queue.js: Queue.requeue is visible (same file), Cache.requeue is not;
    // the edge is marked as a guess.
    assert_has(&e, "src/queue.js:drain invoke src/queue.js:Queue.requeue");
    assert_eq!(meta(&e, "src/queue.js:drain invoke src/queue.js:Queue.requeue"), 1);
    assert_lacks(&e, "src/queue.js:drain invoke src/cache.js:Cache.requeue");
}

/// The real binaries on a mixed repository with the inputs JavaScript projects are full of.
#[test]
fn js_bad_input_and_dependency_directories() {
    use crate::util::Dir;
    let d = Dir::new("lang-js-bad-input");
    let minified = format!("var a=1;{}function last(){{return a}}\n", "a=a+1;".repeat(200_000));
    d.write("src/app.ts", "import { last } from './vendor.min';\nexport function main(): number { return last(); }\n")
        .write("src/vendor.min.js", minified)
        .write("src/types.d.ts", "export declare function typed(x: number): string;\nexport interface Shape { area(): number; }\n")
        .write("src/crlf.js", "\u{feff}/** Doc. */\r\nexport function crlf() {\r\n  return 1;\r\n}\r\n")
        .write("src/broken.js", "export function ok() { return 1; }\nfunction broken( {\n")
        .write("src/latin1.js", b"// caf\xe9\nexport function latin() { return '\xff'; }\n".as_slice())
        .write("src/lies.ts", "def not_typescript():\n    pass\n")
        .write("node_modules/dep/index.js", "export function dep() {}\n")
        .write("main.py", "def main():\n    pass\n");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("1 dependency directories left out (node_modules"), "{err}");
    assert!(err.contains("with syntax errors"), "{err}");
    assert!(err.contains("1 minified or generated"), "{err}");
    let ids = d
        .cmd("cds-search")
        .args([
            "--ids", "-n", "50", "-g", "src/**", "typed", "area", "crlf", "ok", "latin", "last",
            "main",
        ])
        .ok();
    for want in [
        "src/types.d.ts:typed",
        "src/types.d.ts:Shape.area",
        "src/crlf.js:crlf",
        "src/broken.js:ok",
        "src/latin1.js:latin",
        "src/vendor.min.js:last",
        "src/app.ts:main",
    ] {
        assert!(ids.lines().any(|l| l == want), "missing {want} in:\n{ids}");
    }
    assert!(!ids.contains("node_modules"), "{ids}");
    // The fold line is the signature; the doc comment is part of the entity's code.
    let fold = d.cmd("cds-get").args(["--view", "fold", "src/crlf.js:crlf"]).ok();
    assert!(fold.contains("export function crlf()") || fold.contains("function crlf()"), "{fold}");
    let code = d.cmd("cds-get").arg("src/crlf.js:crlf").ok();
    assert!(code.contains("/** Doc. */"), "{code}");
    // Calls link across the import of a one-line, 1 MB file.
    let callers =
        d.cmd("cds-trav").args(["-h1", "-d", "up", "-r", "invoke", "src/vendor.min.js:last"]).ok();
    assert!(callers.contains("src/app.ts:main"), "{callers}");
    // --no-ignore indexes dependencies too.
    let err = d.cmd("cds-build").arg("--no-ignore").stderr_of(0);
    assert!(!err.contains("dependency directories"), "{err}");
    let ids = d.cmd("cds-search").args(["--ids", "dep"]).ok();
    assert!(ids.contains("node_modules/dep/index.js:dep"), "{ids}");
}

/// cds-loc reads a V8 stack trace: its frames name the file and the method.
#[test]
fn js_stack_trace_in_an_issue() {
    use crate::util::Dir;
    let d = Dir::new("lang-js-trace");
    d.write(
        "lib/core/Axios.js",
        "class Axios {\n  constructor(config) { this.config = config; }\n  request(config) {\n    return dispatch(config);\n  }\n  getUri(config) { return config.url; }\n}\nfunction dispatch(c) { return c.adapter(c); }\nmodule.exports = Axios;\n",
    )
    .write("lib/helpers/other.js", "export function request() { return 1; }\n");
    d.cmd("cds-build").stderr_of(0);
    let issue = "Requests crash with a TypeError\n\n```\nTypeError: c.adapter is not a function\n    at dispatch (lib/core/Axios.js:8:33)\n    at Axios.request (lib/core/Axios.js:4:12)\n```\n";
    let out = d.cmd("cds-loc").arg("--json").stdin(issue).ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["found_files"][0], "lib/core/Axios.js", "{out}");
    let ents: Vec<&str> =
        v["found_entities"].as_array().unwrap().iter().filter_map(|x| x.as_str()).collect();
    assert!(ents[..2].contains(&"lib/core/Axios.js:Axios.request"), "{out}");
    assert!(ents[..2].contains(&"lib/core/Axios.js:dispatch"), "{out}");
}

/// The demo mixes Python and TypeScript: the graph dump ends with the counts per language.
#[test]
fn graph_dump_counts_languages() {
    use crate::util::Dir;
    let d = Dir::demo("lang-js-graph-languages");
    d.cmd("cds-build").stderr_of(0);
    let dump = d.cmd("cds-fmt").arg("--graph").ok();
    let last: serde_json::Value = serde_json::from_str(dump.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "languages");
    assert_eq!(last["languages"][0]["language"], "python");
    assert_eq!(last["languages"][0]["files"], 7);
    assert_eq!(last["languages"][1]["language"], "typescript");
    assert_eq!(last["languages"][1]["entities"], 8);
}

/// Modules that re-export each other (`export *` both ways) resolve without looping.
#[test]
fn reexport_cycles_terminate() {
    let e = crate::resolve::edges(&[
        ("a.js", "export * from './b';\nexport function fa() {}\n"),
        ("b.js", "export * from './a';\nexport function fb() {}\n"),
        (
            "c.js",
            "import { fa, fb, missing } from './a';\nexport function go() { fa(); fb(); missing(); }\n",
        ),
    ]);
    assert_has(&e, "c.js:go invoke a.js:fa 0");
    assert_has(&e, "c.js:go invoke b.js:fb 0");
    assert!(!e.iter().any(|l| l.contains("missing")), "{e:?}");
}

/// Fields are typed through base classes; a declared type from outside the repository is
/// external, so its methods are not guessed by name.
#[test]
fn inherited_fields_and_external_types() {
    let e = crate::resolve::edges(&[
        ("db.ts", "export class Db { query(): void {} }\n"),
        ("other.ts", "export class Cache { query(): void {} }\n"),
        (
            "repo.ts",
            "import { Db } from './db';\nimport { Cache } from './other';\nimport { Client } from 'pg';\n\
             class Base { protected db: Db; }\n\
             export class Repo extends Base {\n  run(c: Client) { this.db.query(); c.query(); }\n}\n",
        ),
    ]);
    assert_has(&e, "repo.ts:Repo.run invoke db.ts:Db.query 0");
    assert_lacks(&e, "repo.ts:Repo.run invoke other.ts:Cache.query");
}

/// CommonJS: `require` gives what the module assigned to `module.exports` (a function, a
/// class, an object its definitions are assigned to), with what it exports by name beside it.
#[test]
fn commonjs_module_exports_and_require() {
    let e = crate::resolve::edges(&[
        (
            "a.js",
            "module.exports = Layer;\nfunction Layer(p) { return p; }\n\
             Layer.create = function create() { return new Layer(0); };\n",
        ),
        (
            "app.js",
            "var app = exports = module.exports = {};\napp.use = function use(fn) { return fn; };\n",
        ),
        (
            "b.js",
            "var Layer = require('./a');\nvar util = require('./c');\nvar proto = require('./app');\n\
             var compile = require('./c').compile;\n\
             function useIt() {\n  var l = new Layer(1);\n  Layer(2);\n  Layer.create();\n  \
             util.helper();\n  proto.use(l);\n  compile();\n  return l;\n}\nmodule.exports = useIt;\n",
        ),
        (
            "c.js",
            "exports.helper = function helper() { return 1; };\nexports.compile = function compile() {};\n",
        ),
        ("e.js", "module.exports = function named() {};\n"),
        ("esm.js", "export default function def() {}\nexport function other() {}\n"),
        (
            "f.js",
            "var named = require('./e');\nvar useIt = require('./index');\nvar m = require('./esm');\n\
             function g() { named(); useIt(); m(); m.other(); }\n",
        ),
        ("index.js", "module.exports = require('./b');\n"),
        ("g.js", "function map() {}\nexports.Map = map;\nfunction mk() { return new Map(); }\n"),
        (
            "r.js",
            "var proto = module.exports = function (opts) { return opts; };\n\
             proto.handle = function handle() {};\n",
        ),
        ("u.js", "var Router = require('./r');\nfunction go() { Router(); Router.handle(); }\n"),
        (
            "esm_user.mjs",
            "import Layer from './a';\nexport function h() { return new Layer(3); }\n",
        ),
    ]);
    assert_has(&e, "b.js:useIt invoke a.js:Layer 0");
    assert_has(&e, "b.js:useIt invoke a.js:Layer.create 0");
    assert_has(&e, "b.js:useIt invoke c.js:helper 0");
    assert_has(&e, "b.js:useIt invoke app.js:app.use 0");
    // `require('./c').compile`: an import of the name.
    assert_has(&e, "b.js import c.js:compile");
    assert_has(&e, "b.js:useIt invoke c.js:compile 0");
    assert_has(&e, "f.js:g invoke e.js:named 0");
    // `module.exports = require('./b')` passes b's value on.
    assert_has(&e, "index.js import b.js");
    assert_has(&e, "f.js:g invoke b.js:useIt 0");
    // An ES module's default export is no CommonJS module value: `m()` is not `def`.
    assert_has(&e, "f.js:g invoke esm.js:other 0");
    assert_lacks(&e, "f.js:g invoke esm.js:def");
    // `exports.Map = map` names no `Map` in its file: that is still the global one.
    assert_lacks(&e, "g.js:mk invoke g.js:map");
    // A default import of a CommonJS module, as before.
    assert_has(&e, "esm_user.mjs:h invoke a.js:Layer 0");
    // A module value with definitions assigned to it: `Router.handle` is `proto.handle`.
    assert_has(&e, "u.js:go invoke r.js:proto 0");
    assert_has(&e, "u.js:go invoke r.js:proto.handle 0");
}

/// `this` in a function assigned to a member (`obj.run = function`, `X.prototype.m = function`
/// of a constructor function, a method of an object literal) is that object, or an instance of
/// X; in a plain function or callback it is unknown.
#[test]
fn this_in_functions_assigned_to_members() {
    let e = crate::resolve::edges(&[(
        "b.js",
        "var obj = {};\n\
         obj.helperOnly = function helperOnly() { return 1; };\n\
         obj.run = function run() {\n  this.helperOnly();\n  var self = this;\n  \
         [1].forEach(function () { this.fromCallback(); self.viaSelf(); });\n  \
         [1].forEach(() => this.viaArrow());\n};\n\
         obj.fromCallback = function fromCallback() {};\n\
         obj.viaSelf = function viaSelf() {};\n\
         obj.viaArrow = function viaArrow() {};\n\
         obj.arrow = () => this.helperOnly();\n\
         function Ctor() { this.a(); }\n\
         Ctor.prototype.a = function a() { return 1; };\n\
         Ctor.prototype.b = function b() { return this.a() + this.s(); };\n\
         Ctor.s = function s() { return this.t() + this.a(); };\n\
         Ctor.t = function t() {};\n\
         function plain() { this.helperOnly(); }\n\
         const helpers = { format() { return this.parse(); }, parse() {} };\n",
    )]);
    assert_has(&e, "b.js:obj.run invoke b.js:obj.helperOnly 0");
    assert_has(&e, "b.js:obj.run invoke b.js:obj.viaSelf 0");
    assert_has(&e, "b.js:obj.run invoke b.js:obj.viaArrow 0");
    assert_has(&e, "b.js:Ctor.b invoke b.js:Ctor.a 0");
    assert_has(&e, "b.js:Ctor.s invoke b.js:Ctor.t 0");
    assert_has(&e, "b.js:helpers.format invoke b.js:helpers.parse 0");
    // A plain callback's `this` is not the object; an arrow's at the top level neither.
    assert_lacks(&e, "b.js:obj.run invoke b.js:obj.fromCallback");
    assert_lacks(&e, "b.js:obj.arrow invoke b.js:obj.helperOnly");
    // Statics are not an instance's members, nor prototype methods the constructor's.
    assert_lacks(&e, "b.js:Ctor.b invoke b.js:Ctor.s");
    assert_lacks(&e, "b.js:Ctor.s invoke b.js:Ctor.a");
    // A plain function's `this`, the constructor's own included, is not proven.
    assert_lacks(&e, "b.js:Ctor invoke b.js:Ctor.a");
    assert_lacks(&e, "b.js:plain invoke b.js:obj.helperOnly");
    // In a class method too: a callback's `this` is not the instance (a guess by name).
    let e = crate::resolve::edges(&[(
        "k.js",
        "class K {\n  m() { [1].forEach(function () { this.n(); }); }\n  n() {}\n}\n",
    )]);
    assert_eq!(meta(&e, "k.js:K.m invoke k.js:K.n"), 1);
}

/// `a.x = b.y = function chained() {}`: one definition, named by the assignment whose value
/// it is (`b.y`), that the other names reach too; `var proto = module.exports = function`
/// is `proto`.
#[test]
fn chained_assignments_define_functions() {
    let files = [
        (
            "c.js",
            "a.x = b.y = function chained() { helper(); };\nfunction helper() {}\n\
             function callA() { a.x(); }\n\
             res.set = res.header = function header() { return 1; };\n\
             res.send = function send() { return this.set(); };\n\
             res.type = function type() {};\nres.contentType = res.type;\n\
             function ct() { res.contentType(); }\n",
        ),
        (
            "r.js",
            "var proto = module.exports = function (opts) {\n  function router() {}\n  helper();\n  \
             return router;\n};\nfunction helper() {}\nproto.handle = function handle() {};\n",
        ),
    ];
    let (g, e) = crate::resolve::graph_of(&files);
    let ids = entity_ids(&g);
    for want in ["c.js:b.y", "c.js:res.header", "r.js:proto", "r.js:proto.router"] {
        assert!(ids.iter().any(|i| i == want), "missing {want} in {ids:#?}");
    }
    for unwanted in ["c.js:a.x", "c.js:res.set", "c.js:chained", "r.js:router"] {
        assert!(!ids.iter().any(|i| i == unwanted), "unexpected {unwanted} in {ids:#?}");
    }
    // The function's calls are its own, not the file's.
    assert_has(&e, "c.js:b.y invoke c.js:helper 0");
    assert_lacks(&e, "c.js invoke c.js:helper");
    assert_has(&e, "r.js:proto invoke r.js:helper 0");
    // The other names of the chain, and plain aliases, lead to it.
    assert_has(&e, "c.js:callA invoke c.js:b.y 0");
    assert_has(&e, "c.js:res.send invoke c.js:res.header 0");
    assert_has(&e, "c.js:ct invoke c.js:res.type 0");
}

/// The real binaries find a function of a chained assignment by its own name and show it.
#[test]
fn chained_assignment_found_and_shown() {
    use crate::util::Dir;
    let d = Dir::new("lang-js-chained");
    d.write("lib/c.js", "var a = {}, b = {};\na.x = b.y = function chained() {\n  return helper();\n};\nfunction helper() { return 1; }\n");
    d.cmd("cds-build").stderr_of(0);
    let ids = d.cmd("cds-search").args(["--ids", "chained"]).ok();
    assert!(ids.lines().any(|l| l == "lib/c.js:b.y"), "{ids}");
    let code = d.cmd("cds-get").arg("lib/c.js:b.y").ok();
    assert!(code.contains("a.x = b.y = function chained() {"), "{code}");
    let callees = d.cmd("cds-trav").args(["-r", "invoke", "lib/c.js:b.y"]).ok();
    assert!(callees.contains("lib/c.js:helper"), "{callees}");
}
