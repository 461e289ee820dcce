; What cds extracts from a Go file: definitions, the package clause, imports, calls and the
; bindings that type receivers. Capture names are read by lib/lang/go.rs, which nests the
; captures by byte range and reads the shapes a query cannot express (receiver types, dotted
; callees, the left and right sides of declarations).

; Definitions. Only struct and interface types are class-like (DESIGN.md section 8); other
; type declarations (`type X int`, `type X = Y`) are not entities.
(function_declaration
  name: (identifier) @def.name
  parameters: (parameter_list) @def.params
  result: (_)? @def.result
  body: (block)? @def.body) @def.function

(method_declaration
  receiver: (parameter_list) @def.receiver
  name: (field_identifier) @def.name
  parameters: (parameter_list) @def.params
  result: (_)? @def.result
  body: (block)? @def.body) @def.method

(type_spec
  name: (type_identifier) @def.name
  type: [(struct_type) (interface_type)] @def.body) @def.class

(package_clause (package_identifier) @package.name) @package

; Imports: one match per path, grouped or not; the alias is read in Rust.
(import_spec path: (_) @import.path) @import

; Calls: `f()`, `pkg.F()`, `s.m()`, `f().g()`, `x.y.z()`. Composite literals are not calls.
(call_expression function: (_) @call.callee) @call
; `Map[int](xs)` reads as a conversion to a generic type; it is a call when `Map` is a func.
(type_conversion_expression type: (generic_type) @call.generic) @call

; Bindings for receiver typing: `x := NewFoo()`, `var x Foo`, `x = &Foo{}`, `s.f = g()`,
; typed parameters, struct fields.
(short_var_declaration left: (_) @bind.left right: (_) @bind.right) @bind
(assignment_statement left: (_) @bind.left right: (_) @bind.right) @bind
(var_spec) @bind.var
(parameter_declaration) @bind.param
(field_declaration) @bind.field
