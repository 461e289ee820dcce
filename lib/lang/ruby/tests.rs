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

#[test]
fn query_compiles_with_known_captures() {
    patterns();
    let q = tree_sitter::Query::new(&language(), FACTS_QUERY).expect("compiles");
    let known =
        ["def.name", "def.object", "call.method", "bind.left", "bind.right", "ident.parent"];
    // (`comment` is a main capture.)
    for n in q.capture_names() {
        assert!(MAIN.contains(n) || known.contains(n), "unknown capture @{n}");
    }
}

#[test]
fn definitions_and_their_ids() {
    let f = facts(
        "module RuboCop\n  module Cop\n    class Foo < Base\n      def on_send(node); end\n\
         \x20     def self.doc; end\n      class << self\n        def s; end\n      end\n\
         \x20     class << obj\n        def hidden; end\n      end\n      def obj.nope; end\n\
         \x20     define_method(:dyn) { |x| x }\n      define_method(name) { }\n\
         \x20     def outer\n        def inner; end\n        l = lambda { def_in_lambda_is_inner; }\n      end\n\
         \x20     def ==(o); end\n      def x=(v); end\n      def ok?; end\n    end\n  end\nend\n\
         class A::B::C\n  def m; end\nend\ndef top; end\n",
    );
    assert_eq!(
        quals(&f),
        [
            "RuboCop",
            "RuboCop.Cop",
            "RuboCop.Cop.Foo",
            "RuboCop.Cop.Foo.on_send",
            "RuboCop.Cop.Foo.doc",
            "RuboCop.Cop.Foo.s",
            "RuboCop.Cop.Foo.dyn",
            "RuboCop.Cop.Foo.outer",
            "RuboCop.Cop.Foo.outer.inner",
            "RuboCop.Cop.Foo.==",
            "RuboCop.Cop.Foo.x=",
            "RuboCop.Cop.Foo.ok?",
            "A.B.C",
            "A.B.C.m",
            "top",
        ]
    );
    assert!(f.defs[0].namespace && f.defs[1].namespace && !f.defs[2].namespace);
    assert_eq!(f.defs[2].bases, [Expr::Dotted("Base".into())]);
    assert_eq!(f.defs[3].first_param.as_deref(), Some("self"));
    assert_eq!(f.defs[2].kind, DefKind::Class);
    assert_eq!(f.defs[3].kind, DefKind::Function);
}

#[test]
fn mixins_and_superclasses_are_bases() {
    let f = facts(
        "class Foo < ActiveRecord::Migration[7.0]\n  include Comparable\n  extend A::B, C\n  prepend D\n\
         \x20 def m\n    include NotMine\n  end\nend\nmodule M\n  include N\nend\ninclude Top\n",
    );
    let b: Vec<&Expr> = f.defs[0].bases.iter().collect();
    assert_eq!(
        b,
        [
            &Expr::Dotted("ActiveRecord.Migration".into()),
            &Expr::Dotted("Comparable".into()),
            &Expr::Dotted("A.B".into()),
            &Expr::Dotted("C".into()),
            &Expr::Dotted("D".into()),
        ]
    );
    assert_eq!(f.defs[2].bases, [Expr::Dotted("N".into())]);
}

#[test]
fn requires_are_imports_of_everything() {
    let f = facts(
        "require 'json'\nrequire \"fluent/config\"\nrequire_relative '../x'\n\
         require File.expand_path('../helper', __FILE__)\nautoload :Foo, 'a/foo'\n\
         require \"#{dir}/dyn\"\nload 'tasks/x.rb'\n",
    );
    let got: Vec<(&str, u32)> = f.imports.iter().map(|i| (i.module.as_str(), i.level)).collect();
    assert_eq!(
        got,
        [
            ("json", 0),
            ("fluent/config", 0),
            ("../x", 1),
            ("helper", 1),
            ("a/foo", 0),
            ("tasks/x.rb", 0),
        ]
    );
    assert!(f.imports.iter().all(|i| i.name.as_deref() == Some("*")));
    // Only the dynamic one stays a call (of nothing in the repository).
    let req = f.calls.iter().filter(|c| c.callee == Callee::Name("require".into())).count();
    assert_eq!(req, 1);
}

#[test]
fn calls_locals_and_receivers() {
    let f = facts(
        "class K\n  def m(a, b = dflt, *r, k: 1, &blk)\n    x = Foo::Bar.new(a)\n    x.go\n\
         \x20   y\n    a.z\n    @z ||= Baz.new\n    @z.run\n    super\n    self.q\n    foo 1\n\
         \x20   Util.helper(k)\n    Baz.new.work\n    items.each { |it| it.touch; w }\n\
         \x20   send(:secret)\n    v = 1 if false\n    v\n    rescue => e\n    e.message\n  end\nend\n",
    );
    use Callee::*;
    let want = [
        Name("dflt".into()),
        Chain("Foo.Bar".into()),
        Chain("Foo.Bar.initialize".into()),
        Chain("x.go".into()),
        Name("y".into()),
        Chain("a.z".into()),
        Name("Baz".into()),
        Chain("Baz.initialize".into()),
        Chain("self.@z.run".into()),
        Chain("super.m".into()),
        Chain("self.q".into()),
        Name("foo".into()),
        Chain("Util.helper".into()),
        OnCall("Baz".into(), "work".into()),
        Name("Baz".into()),
        Chain("Baz.initialize".into()),
        Chain("items.each".into()),
        Name("items".into()),
        Chain("it.touch".into()),
        Name("w".into()),
        Name("secret".into()),
        Name("send".into()),
        Chain("e.message".into()),
    ];
    assert_eq!(callees(&f), want.iter().collect::<Vec<_>>());
    assert!(f.calls.iter().all(|c| c.owner == Some(1)));
    let binds: Vec<(&str, &BindValue)> =
        f.binds.iter().map(|b| (b.target.as_str(), &b.value)).collect();
    assert_eq!(
        binds,
        [
            ("x", &BindValue::CallOf("Foo.Bar".into())),
            ("self.@z", &BindValue::CallOf("Baz".into()))
        ]
    );
}

#[test]
fn spans_doc_and_fold() {
    let src = "# frozen_string_literal: true\n\nmodule A\n  # The class.\n  # Second line.\n  class B < C\n\
               \x20   # Does m.\n    def m(a,\n          b)\n      a\n    end\n\n=begin\nblock doc\n=end\n    def n; end\n  end\nend\n";
    let f = facts(src);
    let cut = |r: (u32, u32)| &src[r.0 as usize..r.1 as usize];
    let b = &f.defs[1];
    assert_eq!(cut(b.doc.unwrap()), "# The class.\n  # Second line.");
    assert_eq!((b.line_start, b.line_head, b.line_end), (4, 6, 17));
    assert_eq!(&src[b.byte_head as usize..b.byte_sig_end as usize], "class B < C");
    let m = &f.defs[2];
    assert_eq!(cut(m.doc.unwrap()), "# Does m.");
    assert_eq!((m.line_start, m.line_head, m.line_end), (7, 8, 11));
    assert_eq!(&src[m.byte_head as usize..m.byte_sig_end as usize], "def m(a,\n          b)");
    let n = &f.defs[3];
    assert_eq!(cut(n.doc.unwrap()), "=begin\nblock doc\n=end");
    assert_eq!(f.defs[0].doc, None, "a magic comment a blank line above is no doc");
    let f =
        facts("# frozen_string_literal: true\nmodule A\n  x = 1 # trailing\n  def m; end\nend\n");
    assert_eq!((f.defs[0].doc, f.defs[1].doc), (None, None), "magic and trailing comments");
}

#[test]
fn bad_input_never_panics() {
    let broken = facts("class A\n  def ok; f; end\n  def bad(\nend\nclass B\n  def z; end\nend\n");
    assert!(broken.syntax_errors > 0);
    assert!(quals(&broken).contains(&"B.z".to_string()), "{:?}", quals(&broken));
    let crlf = facts("\u{feff}module M\r\n  class A\r\n    def m\r\n    end\r\n  end\r\nend\r\n");
    assert_eq!(quals(&crlf), ["M", "M.A", "M.A.m"]);
    assert_eq!(crlf.defs[2].line_head, 3);
    assert_eq!(crlf.syntax_errors, 0);
    let mut bytes = b"class A\n  S = \"".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0x80]);
    bytes.extend_from_slice(b"\"\n  def m; end\nend\n");
    assert_eq!(quals(&Extractor::new().extract(&bytes)), ["A", "A.m"]);
    let heredoc = facts(
        "class H\n  def m\n    x = <<~SQL\n      def not_a_method; end\n      #{interp}\n    SQL\n    x\n  end\nend\n",
    );
    assert_eq!(quals(&heredoc), ["H", "H.m"]);
    assert!(heredoc.calls.iter().any(|c| c.callee == Callee::Name("interp".into())));
    let end = facts("def a; end\n__END__\ndef data_not_code; end\n");
    assert_eq!(quals(&end), ["a"]);
    assert_eq!(end.lines, 3);
    let huge = format!("class H\n{}end\n", "  def m; f(1); end\n".repeat(20_000));
    let h = facts(&huge);
    assert_eq!(h.calls.len(), 20_000);
    for s in [
        "",
        "end",
        "class",
        "class <<",
        "def",
        "def self.",
        "module ::",
        "require",
        "=begin",
        "<<~X",
    ] {
        facts(s);
    }
}
