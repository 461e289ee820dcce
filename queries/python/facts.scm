; What cds extracts from a Python file: definitions, decorators, imports, calls and simple
; bindings. Capture names are read by lib/lang/python.rs; the Rust side inspects the captured
; nodes' children (import lists, dotted callees) and derives scoping from byte ranges.

; Definitions. Nested ones are matched too; the Rust side nests them by byte range.
(class_definition
  name: (identifier) @def.name
  superclasses: (argument_list)? @def.bases
  body: (block) @def.body) @def.class

(function_definition
  name: (identifier) @def.name
  parameters: (parameters) @def.params
  return_type: (type)? @def.returns
  body: (block) @def.body) @def.function

(decorator) @decorator

; Imports; the statement's shape is read in Rust.
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; Calls: `f()`, `a.b()`, `f().g()`, `super().m()`, ...
(call function: (_) @call.callee) @call

; Bindings for receiver typing: `x = Foo()`, `self.x = Foo()`, `x: Foo = ...`.
(assignment
  left: [(identifier) (attribute)] @bind.left
  type: (type)? @bind.type
  right: (_)? @bind.right) @bind

; Python 2 statements: tree-sitter accepts them, Python 3 does not.
(print_statement) @py2
(exec_statement) @py2
