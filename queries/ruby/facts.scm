; Ruby facts: what a file defines, requires and calls. The captures find the nodes; Rust
; (lib/lang/ruby) decides what they mean: which identifiers are local variables and which are
; calls of a method of `self`, which calls load files (`require`) or mix modules in
; (`include`), what a `class << self` body belongs to.

; Definitions. `class A::B` and `module A::B` are named by their whole path.
(class name: (_) @def.name) @def.class
(module name: (_) @def.name) @def.module
(method name: (_) @def.name) @def.method
(singleton_method object: (_) @def.object name: (_) @def.name) @def.singleton

; `class << self`: its methods belong to the enclosing class; `class << obj`: to nothing.
(singleton_class value: (_) @def.object) @eigen

; Calls: `m`, `m(x)`, `recv.m`, `Foo::Bar.m`, `Foo.new`, `require "x"`, `include M`.
(call method: (_) @call.method) @call

; `super` and `super(...)`: the same method of an ancestor.
(super) @super

; Bare names: a local variable, or a call of a method of `self` without arguments (the
; parent tells which: a parameter, an assignment's target, a method's name...).
(_ (identifier) @ident) @ident.parent

; Comments: a definition's doc is the block of them on the lines right above it.
(comment) @comment

; Assignments that type a variable: `x = Foo.new`, `@x ||= Foo::Bar.new`.
(assignment left: (_) @bind.left right: (call) @bind.right) @bind
(operator_assignment left: (_) @bind.left right: (call) @bind.right) @bind
