//! Python's value-flow call graph (issue 12): one small program per feature, with the exact
//! edges it must have and must not have. Edges only the value flow finds carry a confidence
//! byte of at least `META_FLOW` (240): 240 for one target, 240 + n for one of n.

use crate::resolve::{assert_has, assert_lacks, edges};

/// The confidence byte of an edge found by the value flow with one target.
const FLOW: u8 = cds::graph::link::META_FLOW;

fn flow(e: &str) -> String {
    format!("{e} {FLOW}")
}

fn invokes(e: &[String], src: &str) -> Vec<String> {
    let mut v: Vec<String> = e
        .iter()
        .filter(|l| l.starts_with(&format!("{src} invoke ")))
        .map(|l| l.split(' ').nth(2).unwrap_or("").to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn alias_chained_and_tuple_assignment() {
    let e = edges(&[(
        "m.py",
        "def g():\n    pass\n\ndef h():\n    pass\n\ndef k():\n    pass\n\n\
         def main():\n    f = g\n    f()\n    a = b = h\n    b()\n    x, y = k, g\n    x()\n",
    )]);
    assert_has(&e, "m.py:main invoke m.py:g 0");
    assert_has(&e, "m.py:main invoke m.py:h 0");
    assert_has(&e, &flow("m.py:main invoke m.py:k"));
    assert_eq!(invokes(&e, "m.py:main"), ["m.py:g", "m.py:h", "m.py:k"]);
}

#[test]
fn global_and_module_attribute_assigned_elsewhere() {
    let e = edges(&[
        ("conf.py", "handler = None\n"),
        ("impl.py", "def real():\n    pass\n"),
        (
            "setup.py",
            "import conf\nfrom impl import real\n\ndef install():\n    conf.handler = real\n",
        ),
        ("use.py", "import conf\n\ndef run():\n    conf.handler()\n"),
        (
            "g.py",
            "cb = None\n\ndef t():\n    pass\n\ndef set_cb():\n    global cb\n    cb = t\n\n\
             def fire():\n    cb()\n",
        ),
    ]);
    assert_has(&e, &flow("use.py:run invoke impl.py:real"));
    assert_has(&e, &flow("g.py:fire invoke g.py:t"));
    assert_eq!(invokes(&e, "g.py:set_cb"), Vec::<String>::new());
}

#[test]
fn function_passed_as_argument_and_returned() {
    let e = edges(&[(
        "m.py",
        "def apply(fn, x):\n    return fn(x)\n\ndef double(v):\n    return v\n\n\
         def pick():\n    return double\n\ndef main():\n    apply(double, 1)\n    p = pick()\n    p(2)\n\
         \ndef by_kw():\n    apply(x=1, fn=double)\n",
    )]);
    assert_has(&e, &flow("m.py:apply invoke m.py:double"));
    assert_has(&e, "m.py:main invoke m.py:apply 0");
    assert_has(&e, "m.py:main invoke m.py:pick 0");
    assert_has(&e, &flow("m.py:main invoke m.py:double"));
    assert_lacks(&e, "m.py:pick invoke m.py:double");
    assert_eq!(invokes(&e, "m.py:by_kw"), ["m.py:apply"]);
}

#[test]
fn functions_in_containers() {
    let e = edges(&[(
        "m.py",
        "def a():\n    pass\n\ndef b():\n    pass\n\ndef c():\n    pass\n\ndef d():\n    pass\n\n\
         TABLE = {'a': a, 'b': b}\nHOOKS = []\n\ndef reg():\n    HOOKS.append(c)\n\n\
         def run(k):\n    TABLE[k]()\n    TABLE.get(k)()\n    for h in HOOKS:\n        h()\n    \
         [f() for f in (d,)]\n",
    )]);
    assert_eq!(invokes(&e, "m.py:run"), ["m.py:a", "m.py:b", "m.py:c", "m.py:d"]);
    assert_has(&e, "m.py:run invoke m.py:a 242");
    assert_has(&e, &flow("m.py:run invoke m.py:c"));
    assert_eq!(invokes(&e, "m.py:reg"), Vec::<String>::new());
}

#[test]
fn attributes_set_on_self_and_objects() {
    let e = edges(&[(
        "m.py",
        "class Engine:\n    def start(self):\n        pass\n\n\
         class Car:\n    def __init__(self):\n        self.setup()\n    def setup(self):\n        self.engine = Engine()\n\
         \n    def go(self):\n        self.engine.start()\n\n\
         def cb():\n    pass\n\nclass Box:\n    pass\n\ndef main():\n    bx = Box()\n    bx.fn = cb\n    bx.fn()\n",
    )]);
    assert_has(&e, "m.py:Car.go invoke m.py:Engine.start");
    assert_has(&e, &flow("m.py:main invoke m.py:cb"));
}

#[test]
fn instantiation_runs_init_and_new_through_the_mro() {
    let e = edges(&[(
        "m.py",
        "class Base:\n    def __init__(self, x):\n        pass\n    def __new__(cls, x):\n        pass\n\n\
         class Child(Base):\n    pass\n\ndef main():\n    Child(1)\n    raise Base(2)\n",
    )]);
    assert_has(&e, "m.py:main invoke m.py:Child 0");
    assert_has(&e, "m.py:main invoke m.py:Base 0");
    assert_has(&e, &flow("m.py:main invoke m.py:Base.__init__"));
    assert_has(&e, &flow("m.py:main invoke m.py:Base.__new__"));
}

#[test]
fn calls_on_instances_returned_by_functions() {
    let e = edges(&[(
        "m.py",
        "class Conn:\n    def query(self):\n        pass\n\n\
         def connect():\n    return Conn()\n\ndef main():\n    c = connect()\n    c.query()\n    connect().query()\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:Conn.query"));
    assert_has(&e, "m.py:connect invoke m.py:Conn 0");
    assert_lacks(&e, "m.py:main invoke m.py:Conn");
}

#[test]
fn super_follows_the_c3_mro() {
    let e = edges(&[(
        "m.py",
        "class A:\n    def hi(self):\n        pass\n\nclass B(A):\n    def hi(self):\n        super().hi()\n\n\
         class C(A):\n    def hi(self):\n        super().hi()\n\n\
         class D(B, C):\n    def hi(self):\n        super().hi()\n",
    )]);
    assert_has(&e, "m.py:D.hi invoke m.py:B.hi");
    assert_has(&e, "m.py:B.hi invoke m.py:A.hi");
    assert_lacks(&e, "m.py:D.hi invoke m.py:C.hi");
    assert_lacks(&e, "m.py:D.hi invoke m.py:A.hi");
}

#[test]
fn static_class_methods_and_properties() {
    let e = edges(&[(
        "m.py",
        "def helper():\n    pass\n\nclass K:\n    @staticmethod\n    def s(fn):\n        fn()\n\
         \n    @classmethod\n    def make(cls, fn):\n        fn()\n        return cls()\n\n\
         \n    @property\n    def size(self):\n        return 1\n\n    def use(self):\n        return self.size\n\n\
         def main():\n    K.s(helper)\n    k = K.make(helper)\n    k.size\n",
    )]);
    assert_has(&e, &flow("m.py:K.s invoke m.py:helper"));
    assert_has(&e, &flow("m.py:K.make invoke m.py:helper"));
    assert_has(&e, &flow("m.py:K.use invoke m.py:K.size"));
    assert_has(&e, &flow("m.py:main invoke m.py:K.size"));
}

#[test]
fn decorators_call_the_wrapper_and_the_wrapper_calls_the_function() {
    let e = edges(&[(
        "m.py",
        "def logged(func):\n    def wrapper(*a):\n        return func(*a)\n    return wrapper\n\n\
         def tag(name):\n    def deco(func):\n        return func\n    return deco\n\n\
         @logged\ndef work():\n    pass\n\n@tag('x')\ndef other():\n    pass\n\n\
         def main():\n    work()\n    other()\n",
    )]);
    assert_has(&e, "m.py:work invoke m.py:logged 0");
    assert_has(&e, &flow("m.py:logged.wrapper invoke m.py:work"));
    assert_has(&e, &flow("m.py:main invoke m.py:logged.wrapper"));
    assert_has(&e, "m.py:main invoke m.py:work 0");
    assert_has(&e, "m.py:other invoke m.py:tag 0");
    assert_has(&e, &flow("m.py:other invoke m.py:tag.deco"));
    assert_has(&e, "m.py:main invoke m.py:other 0");
}

#[test]
fn implicit_calls_with_for_and_operators() {
    let e = edges(&[(
        "m.py",
        "class Ctx:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        pass\n\
         \n    def ping(self):\n        pass\n\n\
         class Seq:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return Ctx()\n\
         \n    def __add__(self, o):\n        return self\n    def __eq__(self, o):\n        return True\n\
         \n    def __getitem__(self, i):\n        return Ctx()\n\n\
         def main():\n    with Ctx() as c:\n        c.ping()\n    s = Seq()\n    for x in s:\n        x.ping()\n    \
         s + s\n    s == s\n    s[0]\n",
    )]);
    for m in [
        "Ctx.__enter__",
        "Ctx.__exit__",
        "Seq.__iter__",
        "Seq.__next__",
        "Seq.__add__",
        "Seq.__eq__",
        "Seq.__getitem__",
    ] {
        assert_has(&e, &flow(&format!("m.py:main invoke m.py:{m}")));
    }
    assert_has(&e, "m.py:main invoke m.py:Ctx.ping");
}

#[test]
fn generators_and_lambdas() {
    let e = edges(&[(
        "m.py",
        "def a():\n    pass\n\ndef gen():\n    yield a\n\ndef b():\n    pass\n\n\
         def main():\n    for f in gen():\n        f()\n    g = lambda: b()\n    return g\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:a"));
    assert_has(&e, "m.py:main invoke m.py:b 0");
}

#[test]
fn imports_through_import_module_and_module_objects() {
    let e = edges(&[
        ("pkg/__init__.py", ""),
        ("pkg/plug.py", "def entry():\n    pass\n"),
        (
            "app.py",
            "import importlib\nimport pkg.plug as plug\n\ndef call_on(mod):\n    mod.entry()\n\n\
             def main():\n    m = importlib.import_module('pkg.plug')\n    m.entry()\n    call_on(plug)\n",
        ),
    ]);
    assert_has(&e, &flow("app.py:main invoke pkg/plug.py:entry"));
    assert_has(&e, &flow("app.py:call_on invoke pkg/plug.py:entry"));
}

#[test]
fn getattr_with_a_literal_name_and_strings_that_name_nothing() {
    let e = edges(&[(
        "m.py",
        "class Job:\n    def run(self):\n        pass\n\n    def stop(self):\n        pass\n\n\
         def main():\n    j = Job()\n    getattr(j, 'run')()\n    getattr(j, \"no such name\")()\n    \
         getattr(j, '')()\n    log('stop the job now', j)\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:Job.run"));
    // A message or an empty string names no attribute.
    let called = invokes(&e, "m.py:main");
    assert!(!called.contains(&"m.py:Job.stop".to_string()), "{called:?}");
}

#[test]
fn builtins_pass_functions_through() {
    let e = edges(&[(
        "m.py",
        "import functools\n\ndef inc(x):\n    return x\n\ndef keyf(x):\n    return x\n\n\
         def pred(x):\n    return x\n\ndef add(a, b):\n    return a\n\n\
         def main(xs):\n    list(map(inc, xs))\n    sorted(xs, key=keyf)\n    filter(pred, xs)\n    \
         p = functools.partial(add, 1)\n    p(2)\n",
    )]);
    for f in ["inc", "keyf", "pred", "add"] {
        assert_has(&e, &flow(&format!("m.py:main invoke m.py:{f}")));
    }
    // Nothing else: the builtins themselves are not repository edges.
    assert_eq!(invokes(&e, "m.py:main"), ["m.py:add", "m.py:inc", "m.py:keyf", "m.py:pred"]);
}

#[test]
fn a_guess_is_replaced_when_the_flow_knows_the_receiver() {
    let e = edges(&[(
        "m.py",
        "class A:\n    def draw(self):\n        pass\n\nclass B:\n    def draw(self):\n        pass\n\n\
         def make():\n    return A()\n\ndef main():\n    obj = make()\n    obj.draw()\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:A.draw"));
    assert_lacks(&e, "m.py:main invoke m.py:B.draw");
}

#[test]
fn decorated_method_through_an_instance_from_a_factory() {
    let e = edges(&[(
        "m.py",
        "def traced(fn):\n    def inner(self):\n        return fn(self)\n    return inner\n\n\
         class Svc:\n    @traced\n    def handle(self):\n        pass\n\n\
         def factory():\n    return Svc()\n\ndef main():\n    s = factory()\n    s.handle()\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:traced.inner"));
    assert_has(&e, &flow("m.py:traced.inner invoke m.py:Svc.handle"));
    assert_has(&e, "m.py:main invoke m.py:Svc.handle");
}

#[test]
fn value_flow_edges_are_marked_in_json() {
    assert_eq!(cds::trav::found_by(FLOW), Some("value-flow"));
    assert_eq!(cds::trav::found_by(FLOW + 2), Some("value-flow"));
    assert_eq!(cds::trav::found_by(0), None);
    assert_eq!(cds::trav::conf_name(FLOW), "exact");
    assert_eq!(cds::trav::conf_name(FLOW + 3), "one-of-3");
}

#[test]
fn a_registering_decorator_returns_each_callers_own_function() {
    let e = edges(&[(
        "m.py",
        "class Library:\n    def tag(self, name=None, fn=None):\n        self.tags[name] = fn\n        return fn\n\n\
         reg = Library()\n\ndef register(func):\n    return func\n\n\
         def a():\n    pass\n\ndef b():\n    pass\n\n\
         def main():\n    x = reg.tag('a', a)\n    x()\n    y = register(b)\n    y()\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:a"));
    assert_has(&e, &flow("m.py:main invoke m.py:b"));
    assert_eq!(invokes(&e, "m.py:main"), ["m.py:Library.tag", "m.py:a", "m.py:b", "m.py:register"]);
}

#[test]
fn a_decorator_factory_shared_by_many_definitions_does_not_mix_them() {
    let e = edges(&[(
        "m.py",
        "class Library:\n    def filter(self, name=None, filter_func=None):\n        if filter_func is None:\n\
         \x20           def dec(func):\n                return self.filter(name, func)\n            return dec\n\
         \x20       return filter_func\n\nregister = Library()\n\n\
         @register.filter('a')\ndef fa(x):\n    pass\n\n@register.filter('b')\ndef fb(x):\n    pass\n\n\
         def main():\n    fa(1)\n",
    )]);
    assert_has(&e, &flow("m.py:fa invoke m.py:Library.filter.dec"));
    assert_has(&e, "m.py:main invoke m.py:fa 0");
    assert_lacks(&e, "m.py:fa invoke m.py:fb");
    assert_lacks(&e, "m.py:main invoke m.py:fb");
    assert_eq!(invokes(&e, "m.py:main"), ["m.py:fa"]);
}

#[test]
fn a_getter_stored_under_another_name_is_not_called_by_reading_it() {
    let e = edges(&[(
        "m.py",
        "class G:\n    @property\n    def wkb(self):\n        return 1\n\n    @property\n    def json(self):\n        return self.ptr\n\n\
         def main():\n    g = G()\n    g.ptr = G.wkb\n    g.wkb\n",
    )]);
    assert_has(&e, &flow("m.py:main invoke m.py:G.wkb"));
    assert_lacks(&e, "m.py:G.json invoke m.py:G.wkb");
}

#[test]
fn decorators_of_any_expression_are_survived() {
    // PEP 614: a decorator may be any expression; those the value flow does not model (a
    // lambda, a yield, an operator) are left out, never a crash (ruff's fixtures have them).
    let e = edges(&[(
        "m.py",
        "def g():\n    pass\n\n@(lambda f: f)\ndef a():\n    g()\n\n@-x\ndef b():\n    g()\n\n\
         def gen():\n    @ (yield)\n    def c():\n        g()\n",
    )]);
    assert_has(&e, "m.py:a invoke m.py:g 0");
    assert_has(&e, "m.py:b invoke m.py:g 0");
    assert_has(&e, "m.py:gen.c invoke m.py:g 0");
}

/// Every invoke edge of `src`, with its confidence byte.
fn invokes_meta(e: &[String], src: &str) -> Vec<String> {
    let mut v: Vec<String> = e
        .iter()
        .filter(|l| l.starts_with(&format!("{src} invoke ")))
        .map(|l| l.splitn(3, ' ').nth(2).unwrap_or("").to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn star_imports_follow_all() {
    let e = edges(&[
        (
            "a.py",
            "__all__ = ['pub', '_priv']\n\ndef pub():\n    pass\n\ndef _priv():\n    pass\n\n\
             def hidden():\n    pass\n",
        ),
        ("c.py", "def x():\n    pass\n\ndef _y():\n    pass\n"),
        ("use_a.py", "from a import *\n\ndef main():\n    pub()\n    _priv()\n    hidden()\n"),
        ("use_c.py", "from c import *\n\ndef main():\n    x()\n    _y()\n"),
        // A module re-exporting another's names through its own narrower list.
        ("e.py", "from a import *\n\n__all__ = ('pub',)\n"),
        ("use_e.py", "from e import *\n\ndef main():\n    pub()\n    _priv()\n"),
        // Lists built from another module's list, `+=`, `.extend`, `.append`.
        (
            "g.py",
            "import a\nfrom a import *\nfrom c import *\n\n__all__ = a.__all__ + ['x']\n\
             __all__ += ['h1']\n__all__.extend(['h2'])\n__all__.append('h3')\n\n\
             def h1():\n    pass\n\ndef h2():\n    pass\n\ndef h3():\n    pass\n\ndef h4():\n    pass\n",
        ),
        (
            "use_g.py",
            "from g import *\n\ndef main():\n    pub()\n    _priv()\n    x()\n    h1()\n    h2()\n    \
             h3()\n    h4()\n    hidden()\n",
        ),
        // A name imported as another module's `__all__`.
        (
            "h.py",
            "from a import *\nfrom a import __all__ as a_all\n\n__all__ = a_all + ['k']\n\n\
             def k():\n    pass\n\ndef k2():\n    pass\n",
        ),
        ("use_h.py", "from h import *\n\ndef main():\n    _priv()\n    k()\n    k2()\n"),
        // A list the analysis cannot read: the public-names rule.
        (
            "n.py",
            "__all__ = [name for name in dir()]\n\ndef q():\n    pass\n\ndef _r():\n    pass\n",
        ),
        ("use_n.py", "from n import *\n\ndef main():\n    q()\n    _r()\n"),
        // Lists assigned under `if` / `try`: either may hold.
        (
            "v.py",
            "import sys\n\nif sys.version_info >= (3,):\n    __all__ = ['p3']\nelse:\n    \
             __all__ = ['p2']\n\ndef p3():\n    pass\n\ndef p2():\n    pass\n\ndef p1():\n    pass\n",
        ),
        ("use_v.py", "from v import *\n\ndef main():\n    p1()\n    p2()\n    p3()\n"),
    ]);
    assert_eq!(invokes_meta(&e, "use_a.py:main"), ["a.py:_priv 0", "a.py:pub 0"]);
    assert_eq!(invokes_meta(&e, "use_c.py:main"), ["c.py:x 0"]);
    assert_eq!(invokes_meta(&e, "use_e.py:main"), ["a.py:pub 0"]);
    assert_eq!(
        invokes_meta(&e, "use_g.py:main"),
        ["a.py:_priv 0", "a.py:pub 0", "c.py:x 0", "g.py:h1 0", "g.py:h2 0", "g.py:h3 0"]
    );
    assert_eq!(invokes_meta(&e, "use_h.py:main"), ["a.py:_priv 0", "h.py:k 0"]);
    assert_eq!(invokes_meta(&e, "use_n.py:main"), ["n.py:q 0"]);
    assert_eq!(invokes_meta(&e, "use_v.py:main"), ["v.py:p2 0", "v.py:p3 0"]);
}

#[test]
fn star_import_of_a_package_binds_the_submodules_its_all_lists() {
    let e = edges(&[
        ("pkg/__init__.py", "__all__ = ['sub', 'top']\n\ndef top():\n    pass\n"),
        ("pkg/sub.py", "def s():\n    pass\n"),
        ("pkg/other.py", "def o():\n    pass\n"),
        ("app.py", "from pkg import *\n\ndef main():\n    top()\n    sub.s()\n    other.o()\n"),
    ]);
    assert_eq!(invokes_meta(&e, "app.py:main"), ["pkg/__init__.py:top 0", "pkg/sub.py:s 0"]);
}

#[test]
fn star_import_chains_re_exports_and_conditional_imports() {
    let e = edges(&[
        ("lib/__init__.py", "from .api import *\n"),
        ("lib/api.py", "from .impl import *\n\n__all__ = ['run', 'Fast']\n"),
        (
            "lib/impl.py",
            "try:\n    from lib.fast import Fast\nexcept ImportError:\n    from lib.slow import Fast\n\n\
             def run():\n    pass\n\ndef _helper():\n    pass\n",
        ),
        ("lib/fast.py", "class Fast:\n    def go(self):\n        pass\n"),
        ("lib/slow.py", "class Fast:\n    def go(self):\n        pass\n"),
        (
            "app.py",
            "import lib\nfrom lib import run as go_run\n\n\
             def main():\n    lib.run()\n    go_run()\n    f = lib.Fast()\n    f.go()\n    lib._helper()\n",
        ),
    ]);
    // `lib.run` and `go_run` through two star imports, `_helper` not (not in `__all__`), and
    // both alternatives of the conditional import, as one of two.
    assert_eq!(
        invokes_meta(&e, "app.py:main"),
        [
            "lib/fast.py:Fast 242",
            "lib/fast.py:Fast.go 242",
            "lib/impl.py:run 0",
            "lib/slow.py:Fast 242",
            "lib/slow.py:Fast.go 242"
        ]
    );
}

#[test]
fn nonlocal_and_augmented_assignment() {
    let e = edges(&[(
        "m.py",
        "def t():\n    pass\n\ndef u():\n    pass\n\ndef v():\n    pass\n\n\
         def outer():\n    cb = None\n    def set_cb():\n        nonlocal cb\n        cb = t\n    \
         def fire():\n        cb()\n    set_cb()\n    fire()\n\n\
         def many():\n    fs = [u]\n    fs += [v]\n    for f in fs:\n        f()\n",
    )]);
    assert_eq!(invokes_meta(&e, "m.py:outer.fire"), [format!("m.py:t {FLOW}")]);
    assert_eq!(invokes(&e, "m.py:outer.set_cb"), Vec::<String>::new());
    assert_eq!(invokes(&e, "m.py:many"), ["m.py:u", "m.py:v"]);
}

#[test]
fn functions_in_sets_tuples_dict_views_and_class_attributes() {
    let e = edges(&[(
        "m.py",
        "def a():\n    pass\n\ndef b():\n    pass\n\ndef c():\n    pass\n\ndef d():\n    pass\n\n\
         def h(self):\n    pass\n\n\
         class K:\n    hook = h\n    def run(self):\n        self.hook()\n\n\
         def main():\n    for f in {a}:\n        f()\n    t = (b,)\n    t[0]()\n    \
         for k, v in {'k': c}.items():\n        v()\n    [g for g in [d]][0]()\n    K.hook(None)\n",
    )]);
    assert_eq!(invokes(&e, "m.py:main"), ["m.py:a", "m.py:b", "m.py:c", "m.py:d", "m.py:h"]);
    assert_eq!(invokes(&e, "m.py:K.run"), ["m.py:h"]);
}

#[test]
fn raise_call_operator_and_next() {
    let e = edges(&[(
        "m.py",
        "class Oops(Exception):\n    def __init__(self, msg):\n        pass\n\n\
         class Fn:\n    def __call__(self):\n        pass\n\n\
         class It:\n    def __next__(self):\n        return 1\n\n\
         def a():\n    pass\n\ndef gen():\n    yield a\n\n\
         def main():\n    f = Fn()\n    f()\n    g = next(gen())\n    g()\n    next(It())\n    \
         raise Oops('x')\n",
    )]);
    assert_eq!(
        invokes_meta(&e, "m.py:main"),
        [
            "m.py:Fn 0".to_string(),
            // `f = Fn()` types `f` for the scope rules already: not the value flow's alone.
            "m.py:Fn.__call__ 0".to_string(),
            "m.py:It 0".to_string(),
            flow("m.py:It.__next__"),
            "m.py:Oops 0".to_string(),
            flow("m.py:Oops.__init__"),
            flow("m.py:a"),
            "m.py:gen 0".to_string(),
        ]
    );
}

/// Values that reach a function only after its file was first evaluated (they come from a file
/// evaluated later) still flow through each of its statements in turn, and through what its
/// class inherits: a later round evaluates again the statements whose input changed, and those
/// fed by them.
#[test]
fn values_that_arrive_late_flow_through_every_statement_and_base_class() {
    let e = edges(&[
        (
            "a_use.py",
            "from b_base import Base\n\n\
             def use(x):\n    y = x\n    z = [y]\n    (w,) = z\n    w()\n\n\
             class Child(Base):\n    def run(self):\n        self.handler()\n\n\
             def shared(fn):\n    a = b = fn\n    b()\n",
        ),
        ("b_base.py", "class Base:\n    pass\n"),
        (
            "c_main.py",
            "from a_use import use, Child, shared\nfrom b_base import Base\n\n\
             def target():\n    pass\n\ndef real():\n    pass\n\ndef other():\n    pass\n\n\
             Base.handler = real\n\n\
             def main():\n    use(target)\n    shared(other)\n",
        ),
    ]);
    assert_has(&e, &flow("a_use.py:use invoke c_main.py:target"));
    assert_has(&e, &flow("a_use.py:Child.run invoke c_main.py:real"));
    assert_has(&e, &flow("a_use.py:shared invoke c_main.py:other"));
    assert_eq!(invokes(&e, "a_use.py:use"), ["c_main.py:target"]);
}

/// A member found on a subclass hides the base class's; an attribute assigned to the subclass
/// later (from another file) takes over from the base's method.
#[test]
fn a_member_assigned_to_a_subclass_later_hides_the_base_class_member() {
    let e = edges(&[
        (
            "a_cls.py",
            "class Base:\n    def hook(self):\n        pass\n\n\
             class Child(Base):\n    def run(self):\n        self.hook()\n\n\
             class Plain(Base):\n    def run(self):\n        self.hook()\n",
        ),
        (
            "b_set.py",
            "from a_cls import Child\n\ndef custom(self):\n    pass\n\nChild.hook = custom\n",
        ),
    ]);
    assert_has(&e, "a_cls.py:Plain.run invoke a_cls.py:Base.hook 0");
    assert_has(&e, &flow("a_cls.py:Child.run invoke b_set.py:custom"));
}
