//! Ruby: entity IDs, spans, and import / invoke / inherit resolution (load paths, Zeitwerk's
//! file names, lexical constant lookup, mixins, `super`, `class << self`, `Foo.new`), on small
//! in-memory repositories, plus the real binaries on `tests/fixtures/ruby/shelf`.

use crate::resolve::{assert_has, assert_lacks, edges, entity_ids, graph_of, meta};
use crate::util::{Dir, borrow, fixture_files};

/// The fixture gem as in-memory files.
fn shelf() -> Vec<(String, String)> {
    fixture_files("ruby/shelf")
}

#[test]
fn entity_ids_follow_the_nesting() {
    let (g, _) = graph_of(&[
        (
            "lib/rubocop/cop/style/foo.rb",
            "module RuboCop\n  module Cop\n    module Style\n      # Checks foo.\n      class Foo < Base\n        MSG = 'x'\n\n        def on_send(node)\n          helper(node)\n        end\n\n        def self.badge; end\n\n        class << self\n          def registry; end\n        end\n\n        class Inner\n          def go; end\n        end\n\n        private\n\n        def helper(node) = node\n      end\n    end\n  end\nend\n",
        ),
        ("lib/a/b.rb", "class A::B\n  def m; end\nend\n\nmodule A::C\n  def self.f; end\nend\n"),
        // A class reopened in another file is an entity of that file too.
        ("lib/rubocop/ext.rb", "class RuboCop::Cop::Style::Foo\n  def extra; end\nend\n"),
    ]);
    assert_eq!(
        entity_ids(&g),
        [
            "lib/a/b.rb:A.B",
            "lib/a/b.rb:A.B.m",
            "lib/a/b.rb:A.C",
            "lib/a/b.rb:A.C.f",
            "lib/rubocop/ext.rb:RuboCop.Cop.Style.Foo",
            "lib/rubocop/ext.rb:RuboCop.Cop.Style.Foo.extra",
            "lib/rubocop/cop/style/foo.rb:RuboCop",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.on_send",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.badge",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.registry",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.Inner",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.Inner.go",
            "lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo.helper",
        ]
    );
    let ns = |id: &str| {
        let n = g.nodes.iter().find(|n| n.id == id.as_bytes()).unwrap();
        n.flags & cds::graph::FLAG_NAMESPACE != 0
    };
    assert!(ns("lib/rubocop/cop/style/foo.rb:RuboCop.Cop"));
    assert!(ns("lib/a/b.rb:A.C"));
    assert!(!ns("lib/rubocop/cop/style/foo.rb:RuboCop.Cop.Style.Foo"));
}

#[test]
fn requires_follow_the_load_paths() {
    let e = edges(&[
        ("core/lib/core.rb", "require 'core/util'\nrequire 'json'\n"),
        ("core/lib/core/util.rb", "def tidy(s) = s\n"),
        ("core/core.gemspec", "Gem::Specification.new { |s| s.require_paths = ['lib'] }\n"),
        ("app/lib/app.rb", "require 'core'\nrequire 'app/cli'\nrequire_relative 'app/cli'\n"),
        (
            "app/lib/app/cli.rb",
            "require_relative '../app'\nrequire File.expand_path('../../app', __FILE__)\ntidy(' x ')\n",
        ),
        // Two gems provide `util`: the requiring file's own gem wins.
        ("app/lib/util.rb", ""),
        ("other/lib/util.rb", ""),
        ("app/lib/app/main.rb", "require 'util'\nautoload :Cli, 'app/cli'\n"),
        ("spec/spec_helper.rb", "require 'app'\n"),
        ("spec/app_spec.rb", "require 'spec_helper'\nrequire_relative '../app/lib/app/cli'\n"),
        ("Rakefile", "require_relative 'app/lib/app'\n"),
    ]);
    assert_has(&e, "core/lib/core.rb import core/lib/core/util.rb 0");
    assert_has(&e, "app/lib/app.rb import core/lib/core.rb 0");
    assert_has(&e, "app/lib/app.rb import app/lib/app/cli.rb 0");
    assert_has(&e, "app/lib/app/cli.rb import app/lib/app.rb 0");
    assert_has(&e, "app/lib/app/main.rb import app/lib/util.rb 0");
    assert_lacks(&e, "app/lib/app/main.rb import other/lib/util.rb");
    assert_has(&e, "app/lib/app/main.rb import app/lib/app/cli.rb 0");
    assert_has(&e, "spec/spec_helper.rb import app/lib/app.rb 0");
    assert_has(&e, "spec/app_spec.rb import spec/spec_helper.rb 0");
    assert_has(&e, "spec/app_spec.rb import app/lib/app/cli.rb 0");
    assert_has(&e, "Rakefile import app/lib/app.rb 0");
    // A required file's top-level methods are visible.
    assert_has(&e, "app/lib/app/cli.rb invoke core/lib/core/util.rb:tidy 0");
    assert!(!e.iter().any(|x| x.contains("json")), "{e:?}");
}

#[test]
fn constants_resolve_lexically_and_by_zeitwerk_paths() {
    let e = edges(&[
        // No requires at all: Zeitwerk / Rails autoloading.
        (
            "app/models/user_account.rb",
            "class UserAccount < ApplicationRecord\n  def self.find_by_token(t); end\n  def activate; end\nend\n",
        ),
        ("app/models/application_record.rb", "class ApplicationRecord\n  def save; end\nend\n"),
        (
            "lib/billing/http_client.rb",
            "module Billing\n  class HTTPClient\n    def post; end\n  end\nend\n",
        ),
        (
            "lib/billing/invoice.rb",
            "module Billing\n  class Invoice\n    def send!\n      HTTPClient.new.post\n      Billing::HTTPClient.new.post\n      ::UserAccount.find_by_token('t').activate\n      Mailer.deliver\n    end\n  end\nend\n",
        ),
        // The same name in another namespace is another constant.
        (
            "lib/other/http_client.rb",
            "module Other\n  class HTTPClient\n    def post; end\n  end\nend\n",
        ),
        (
            "app/controllers/accounts_controller.rb",
            "class AccountsController\n  def create\n    user = UserAccount.new\n    user.activate\n    user.save\n  end\nend\n",
        ),
    ]);
    assert_has(
        &e,
        "app/models/user_account.rb:UserAccount inherit app/models/application_record.rb:ApplicationRecord 0",
    );
    assert_has(
        &e,
        "lib/billing/invoice.rb:Billing.Invoice.send! invoke lib/billing/http_client.rb:Billing.HTTPClient.post 0",
    );
    assert_lacks(
        &e,
        "lib/billing/invoice.rb:Billing.Invoice.send! invoke lib/other/http_client.rb:Other.HTTPClient.post",
    );
    assert_has(
        &e,
        "lib/billing/invoice.rb:Billing.Invoice.send! invoke app/models/user_account.rb:UserAccount.find_by_token 0",
    );
    assert_has(
        &e,
        "app/controllers/accounts_controller.rb:AccountsController.create invoke app/models/user_account.rb:UserAccount.activate 0",
    );
    assert_has(
        &e,
        "app/controllers/accounts_controller.rb:AccountsController.create invoke app/models/application_record.rb:ApplicationRecord.save 0",
    );
    assert_has(
        &e,
        "app/controllers/accounts_controller.rb:AccountsController.create invoke app/models/user_account.rb:UserAccount 0",
    );
    // `Mailer` is defined nowhere: outside the repository, its methods never guessed.
    assert!(!e.iter().any(|x| x.contains("deliver")), "{e:?}");
}

#[test]
fn reopened_classes_prefer_the_autoloaded_file() {
    let e = edges(&[
        ("lib/shop/cart.rb", "module Shop\n  class Cart\n    def total; end\n  end\nend\n"),
        (
            "lib/shop/ext/cart_ext.rb",
            "module Shop\n  class Cart\n    def discount; end\n  end\nend\n",
        ),
        (
            "lib/shop/checkout.rb",
            "module Shop\n  class Checkout\n    def run\n      Cart.new.total\n      Cart.new.discount\n    end\n  end\nend\n",
        ),
    ]);
    assert_has(
        &e,
        "lib/shop/checkout.rb:Shop.Checkout.run invoke lib/shop/cart.rb:Shop.Cart.total 0",
    );
    assert_has(
        &e,
        "lib/shop/checkout.rb:Shop.Checkout.run invoke lib/shop/ext/cart_ext.rb:Shop.Cart.discount 0",
    );
}

#[test]
fn mixins_super_and_implicit_receivers() {
    let e = edges(&[
        (
            "lib/plug/base.rb",
            "module Plug\n  class Base\n    def configure(conf)\n      setup\n    end\n    def setup; end\n  end\nend\n",
        ),
        (
            "lib/plug/helpers.rb",
            "module Plug\n  module Helpers\n    def retry_state; end\n  end\n  module ClassMethods\n    def register(name); end\n  end\nend\n",
        ),
        (
            "lib/plug/output.rb",
            "module Plug\n  class Output < Base\n    include Helpers\n    extend ClassMethods\n\n    register :out\n    self.register :out2\n\n    def configure(conf)\n      super\n      retry_state\n      setup\n      start(conf)\n      conf = 1\n      conf\n    end\n\n    def start(c)\n      self.configure(c)\n      write = c\n      write\n    end\n\n    def write; end\n  end\nend\n",
        ),
    ]);
    let out = "lib/plug/output.rb:Plug.Output";
    assert_has(&e, &format!("{out} inherit lib/plug/base.rb:Plug.Base 0"));
    assert_has(&e, &format!("{out} inherit lib/plug/helpers.rb:Plug.Helpers 0"));
    assert_has(&e, &format!("{out} inherit lib/plug/helpers.rb:Plug.ClassMethods 0"));
    assert_has(&e, &format!("{out}.configure invoke lib/plug/base.rb:Plug.Base.configure 0"));
    assert_has(
        &e,
        &format!("{out}.configure invoke lib/plug/helpers.rb:Plug.Helpers.retry_state 0"),
    );
    assert_has(&e, &format!("{out}.configure invoke lib/plug/base.rb:Plug.Base.setup 0"));
    assert_has(&e, &format!("{out}.configure invoke {out}.start 0"));
    assert_has(&e, &format!("{out}.start invoke {out}.configure 0"));
    assert_has(&e, &format!("{out} invoke lib/plug/helpers.rb:Plug.ClassMethods.register 0"));
    assert_has(
        &e,
        "lib/plug/base.rb:Plug.Base.configure invoke lib/plug/base.rb:Plug.Base.setup 0",
    );
    // `write` is a local variable there, not a call of the method `write`.
    assert_lacks(&e, &format!("{out}.start invoke {out}.write"));
}

/// A mixin nested in the class that includes it is a base (looked up inside the class body);
/// `super` with no ancestor here that has the method links nothing, never the method itself
/// or a same-named method of another class.
#[test]
fn nested_mixins_and_super_into_outside_classes() {
    let e = edges(&[(
        "lib/a.rb",
        "module Top\n  class Req\n    def params\n      super\n    end\n\n    module Helpers\n      def params\n        1\n      end\n    end\n\n    include Helpers\n  end\n\n  class Req2\n    def params\n      2\n    end\n  end\n\n  class H < Hash\n    def store(k, v)\n      super\n    end\n  end\nend\n",
    )]);
    let req = "lib/a.rb:Top.Req";
    assert_has(&e, &format!("{req} inherit {req}.Helpers 0"));
    assert_has(&e, &format!("{req}.params invoke {req}.Helpers.params 0"));
    assert_lacks(&e, &format!("{req}.params invoke {req}.params"));
    assert_lacks(&e, &format!("{req}.params invoke lib/a.rb:Top.Req2.params"));
    assert_lacks(&e, "lib/a.rb:Top.H.store invoke lib/a.rb:Top.H.store");
}

#[test]
fn singleton_methods_and_new() {
    let e = edges(&[
        (
            "lib/conf.rb",
            "module Conf\n  class Parser\n    class << self\n      def parse(text)\n        new(text).run\n      end\n    end\n\n    def self.default = parse('')\n\n    def initialize(text); @text = text; end\n\n    def run; end\n  end\n\n  def self.load(path)\n    Parser.parse(path)\n    p = Parser.new(path)\n    p.run\n  end\nend\n",
        ),
        (
            "bin/conf.rb",
            "require_relative '../lib/conf'\nConf.load(ARGV[0])\nConf::Parser.default\n",
        ),
    ]);
    assert_has(&e, "lib/conf.rb:Conf.Parser.parse invoke lib/conf.rb:Conf.Parser.initialize 0");
    assert_has(&e, "lib/conf.rb:Conf.Parser.default invoke lib/conf.rb:Conf.Parser.parse 0");
    assert_has(&e, "lib/conf.rb:Conf.load invoke lib/conf.rb:Conf.Parser.parse 0");
    assert_has(&e, "lib/conf.rb:Conf.load invoke lib/conf.rb:Conf.Parser.initialize 0");
    assert_has(&e, "lib/conf.rb:Conf.load invoke lib/conf.rb:Conf.Parser.run 0");
    assert_has(&e, "bin/conf.rb invoke lib/conf.rb:Conf.load 0");
    assert_has(&e, "bin/conf.rb invoke lib/conf.rb:Conf.Parser.default 0");
}

#[test]
fn unknown_receivers_are_guesses_among_visible_files() {
    let e = edges(&[
        (
            "lib/a/order.rb",
            "module A\n  class Order\n    def finalize; end\n    def ship; end\n  end\nend\n",
        ),
        ("lib/a/invoice.rb", "module A\n  class Invoice\n    def finalize; end\n  end\nend\n"),
        (
            "lib/b/ledger.rb",
            "module B\n  class Ledger\n    def reconcile_all; end\n    def each; end\n  end\nend\n",
        ),
        (
            "lib/flow.rb",
            "require 'a/order'\nrequire 'a/invoice'\n\nmodule Flow\n  def self.close(doc, items)\n    doc.finalize\n    doc.reconcile_all\n    doc.ship\n    items.each { |i| i }\n    JSON.parse('x').finalize\n  end\nend\n",
        ),
    ]);
    assert_eq!(meta(&e, "lib/flow.rb:Flow.close invoke lib/a/order.rb:A.Order.finalize"), 2);
    assert_eq!(meta(&e, "lib/flow.rb:Flow.close invoke lib/a/invoice.rb:A.Invoice.finalize"), 2);
    // Not visible from the file: not linked, even as the only one of its name.
    assert_lacks(&e, "lib/flow.rb:Flow.close invoke lib/b/ledger.rb:B.Ledger.reconcile_all");
    // Visible and the only one: a guess.
    assert_eq!(meta(&e, "lib/flow.rb:Flow.close invoke lib/a/order.rb:A.Order.ship"), 1);
    // Core methods are never guessed.
    assert_lacks(&e, "lib/flow.rb:Flow.close invoke lib/b/ledger.rb:B.Ledger.each");
}

#[test]
fn define_method_and_blocks() {
    let (g, e) = graph_of(&[(
        "lib/dyn.rb",
        "class Dyn\n  %w[a b].each do |n|\n    define_method(\"get_#{n}\") { fetch(n) }\n  end\n  define_method(:reset) do\n    clear\n  end\n  def clear; end\n  def fetch(n); end\n  H = lambda { |x| clear }\nend\n",
    )]);
    assert_eq!(
        entity_ids(&g),
        ["lib/dyn.rb:Dyn", "lib/dyn.rb:Dyn.reset", "lib/dyn.rb:Dyn.clear", "lib/dyn.rb:Dyn.fetch"]
    );
    assert_has(&e, "lib/dyn.rb:Dyn.reset invoke lib/dyn.rb:Dyn.clear 0");
    // Code in blocks and lambdas of the class body belongs to the class.
    assert_has(&e, "lib/dyn.rb:Dyn invoke lib/dyn.rb:Dyn.fetch 0");
}

#[test]
fn fixture_in_memory() {
    let files = shelf();
    let e = edges(&borrow(&files));
    assert_has(&e, "lib/shelf.rb import lib/shelf/library.rb 0");
    assert_has(&e, "lib/shelf.rb:Shelf import lib/shelf/formats/json_export.rb 0");
    assert_has(&e, "spec/spec_helper.rb import lib/shelf.rb 0");
    assert_has(&e, "Rakefile invoke lib/shelf.rb:Shelf.open 0");
    assert_has(
        &e,
        "lib/shelf.rb:Shelf.open invoke lib/shelf/library.rb:Shelf.Library.initialize 0",
    );
    assert_has(&e, "lib/shelf/book.rb:Shelf.Book inherit lib/shelf/item.rb:Shelf.Item 0");
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library inherit lib/shelf/searchable.rb:Shelf.Searchable 0",
    );
    assert_has(
        &e,
        "lib/shelf/book.rb:Shelf.Book.initialize invoke lib/shelf/item.rb:Shelf.Item.initialize 0",
    );
    assert_has(
        &e,
        "lib/shelf/book.rb:Shelf.Book.label invoke lib/shelf/item.rb:Shelf.Item.label 0",
    );
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library.add invoke lib/shelf/book.rb:Shelf.Book.initialize 0",
    );
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library.add invoke lib/shelf/library.rb:Shelf.Library.validate! 0",
    );
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library.find invoke lib/shelf/searchable.rb:Shelf.Searchable.search 0",
    );
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library.load invoke lib/shelf/library.rb:Shelf.Library.initialize 0",
    );
    assert_has(
        &e,
        "lib/shelf/library.rb:Shelf.Library.to_json invoke lib/shelf/formats/json_export.rb:Shelf.Formats.JsonExport.dump 0",
    );
    assert_has(
        &e,
        "lib/shelf/formats/json_export.rb:Shelf.Formats.JsonExport.row invoke lib/shelf/formats/json_export.rb:Shelf.Formats.JsonExport.mime 0",
    );
    assert_has(&e, "spec/shelf/library_spec.rb invoke lib/shelf/library.rb:Shelf.Library.find 0");
}

#[test]
fn build_trav_and_get_on_a_ruby_gem() {
    let d = Dir::fixture("ruby-e2e", "ruby/shelf");
    let err = d.cmd("cds-build").stderr_of(0);
    assert!(err.contains("ruby"), "{err}");
    let got = d
        .cmd("cds-trav")
        .args(["--ids", "-r", "invoke", "lib/shelf/library.rb:Shelf.Library.add"])
        .ok();
    for want in
        ["lib/shelf/book.rb:Shelf.Book.initialize", "lib/shelf/library.rb:Shelf.Library.validate!"]
    {
        assert!(got.lines().any(|l| l == want), "{want} in\n{got}");
    }
    let up = d
        .cmd("cds-trav")
        .args(["--ids", "-d", "up", "-r", "invoke", "lib/shelf/item.rb:Shelf.Item.label"])
        .ok();
    assert_eq!(up, "lib/shelf/item.rb:Shelf.Item.label\nlib/shelf/book.rb:Shelf.Book.label\n");
    // `*_spec.rb` under `spec/` are tests: walked only with --tests.
    let up = d
        .cmd("cds-trav")
        .args([
            "--ids",
            "--tests",
            "-d",
            "up",
            "-r",
            "invoke",
            "lib/shelf/library.rb:Shelf.Library.find",
        ])
        .ok();
    assert!(up.contains("spec/shelf/library_spec.rb\n"), "{up}");
    let fold =
        d.cmd("cds-get").args(["--view", "fold", "lib/shelf/library.rb:Shelf.Library.add"]).ok();
    assert_eq!(
        fold,
        "lib/shelf/library.rb:Shelf.Library.add\tfunction\t14-20\tdef add(title, author)\n"
    );
    let doc = d.cmd("cds-get").args(["lib/shelf/library.rb:Shelf.Library.add"]).ok();
    assert!(doc.contains("# Adds a book and returns it."), "{doc}");
}

#[test]
fn long_classes_preview_as_ruby_skeletons() {
    let d = Dir::new("lang-ruby-skeleton");
    let mut src = String::from(
        "module Big
  class Table
",
    );
    for i in 0..30 {
        src.push_str(&format!("    def m{i}(x)\n      x + {i}\n      x * {i}\n    end\n\n"));
    }
    src.push_str("  end\nend\n");
    d.write("lib/big/table.rb", &src);
    d.cmd("cds-build").stderr_of(0);
    // Bodies elided, each `end` kept: the skeleton reads as Ruby.
    let sk = d.cmd("cds-get").args(["--view", "preview", "lib/big/table.rb:Big.Table"]).ok();
    assert!(sk.contains("    def m7(x)\n"), "{sk}");
    assert!(!sk.contains("x * 7"), "{sk}");
    assert!(sk.contains(" |     end\n"), "{sk}");
    assert!(!sk.contains('}'), "{sk}");
}

#[test]
fn search_trav_get_pipeline() {
    let d = Dir::fixture("ruby-pipe", "ruby/shelf");
    d.cmd("cds-build").stderr_of(0);
    let found = d.cmd("cds-search").args(["--ids", "validate"]).ok();
    assert!(
        found.lines().next() == Some("lib/shelf/library.rb:Shelf.Library.validate!"),
        "{found}"
    );
    let near = d.cmd("cds-trav").args(["-h1", "-d", "up"]).stdin(&found).ok();
    let code = d.cmd("cds-get").args(["--view", "fold"]).stdin(&near).ok();
    assert!(code.contains("def add(title, author)"), "{code}");
}

#[test]
fn loc_names_modules_after_the_namespaces() {
    let d = Dir::new("lang-ruby-loc");
    d.write(
        "lib/rubocop/cop/style/guard_clause.rb",
        "module RuboCop\n  module Cop\n    module Style\n      # Use a guard clause.\n      class GuardClause < Base\n        def accepted_if?(node, ending)\n          node.modifier_form? || ending\n        end\n      end\n    end\n  end\nend\n",
    );
    d.cmd("cds-build").stderr_of(0);
    let out = d
        .cmd("cds-loc")
        .arg("--json")
        .stdin("Style/GuardClause: accepted_if? is wrong for ternaries\n\nlib/rubocop/cop/style/guard_clause.rb:7:in 'accepted_if?'\n")
        .ok();
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        v["found_entities"][0],
        "lib/rubocop/cop/style/guard_clause.rb:RuboCop.Cop.Style.GuardClause.accepted_if?",
        "{out}"
    );
    assert_eq!(
        v["found_modules"][0],
        "lib/rubocop/cop/style/guard_clause.rb:RuboCop.Cop.Style.GuardClause",
        "{out}"
    );
}

#[test]
fn bad_input_never_panics() {
    let e = edges(&[
        ("lib/broken.rb", "class Broken\n  def ok; helper; end\n  def bad(\nend\n"),
        (
            "lib/crlf.rb",
            "\u{feff}module M\r\n  def self.h\r\n    x = <<~EOS\r\n      #{M.h}\r\n    EOS\r\n  end\r\nend\r\n__END__\r\ndef data; end\r\n",
        ),
        (
            "lib/cycle.rb",
            "require 'cycle'\nrequire_relative 'cycle'\nclass A < A; end\nclass B < C; end\nclass C < B; include C; end\nmodule C; end\n",
        ),
        ("lib/deep.rb", &"module X\n".repeat(200)),
    ]);
    assert_has(&e, "lib/crlf.rb:M.h invoke lib/crlf.rb:M.h 0");
}
