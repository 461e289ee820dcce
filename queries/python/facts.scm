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

; What tree-sitter accepts but Python 3.12's `ast.parse` rejects (Python 2 forms, mostly). The
; Rust side lets through a `print >>f, x` (a valid Python 3 expression) and a `try` that has an
; `except` or `finally`.
(print_statement) @py2
(exec_statement) @py2
(try_statement) @py2
((integer) @py2 (#match? @py2 "^0[0-9_]*[1-9][0-9_]*$|[lL]$"))
((string_start) @py2 (#match? @py2 "^([uU][rR]|`)"))
(comparison_operator "<>" @py2)
(except_clause "," @py2)
(raise_statement (expression_list) @py2)
(parameters (tuple_pattern) @py2)
(lambda_parameters (tuple_pattern) @py2)
((identifier) @py2 (#any-of? @py2 "async" "await"))
; An empty body: `def f():` with nothing after it.
((block) @py2 (#eq? @py2 ""))
