; What cds extracts from a PHP file: definitions, namespaces, `use` imports, `require` and
; `include`, calls and the typed bindings that give receivers their class. Capture names are
; read by lib/lang/php/mod.rs, which nests captures by byte range and resolves every class and
; function name the way PHP does at compile time (the current namespace and its `use` clauses).
; Started from tree-sitter-php's queries/tags.scm.

; Class-like definitions (DESIGN.md §8): class, interface, trait, enum.
(class_declaration
  name: (name) @def.name
  body: (declaration_list) @def.body) @def.class
(interface_declaration
  name: (name) @def.name
  body: (declaration_list) @def.body) @def.class
(trait_declaration
  name: (name) @def.name
  body: (declaration_list) @def.body) @def.class
(enum_declaration
  name: (name) @def.name
  body: (enum_declaration_list) @def.body) @def.class

; Function-like definitions: methods (abstract and interface ones have no body) and functions.
(method_declaration
  name: (name) @def.name) @def.function
(function_definition
  name: (name) @def.name) @def.function

; `namespace A\B;` and `namespace A\B { ... }`; `use` clauses at namespace level (a trait's
; `use` inside a class body is a `use_declaration`, read with its class).
(namespace_definition) @namespace
(namespace_use_declaration) @use

; `require`/`include` (and their `_once` forms) of a literal path.
[
  (include_expression)
  (include_once_expression)
  (require_expression)
  (require_once_expression)
] @include

; Calls: `f()`, `$x->m()`, `$x?->m()`, `Foo::m()`, `self::m()`, `parent::m()`, `new Foo`.
(function_call_expression
  function: (_) @call.function) @call
(member_call_expression
  object: (_) @call.object
  name: (name) @call.name) @call.member
(nullsafe_member_call_expression
  object: (_) @call.object
  name: (name) @call.name) @call.member
(scoped_call_expression
  scope: (_) @call.scope
  name: (name) @call.name) @call.scoped
(object_creation_expression) @call.new

; Typed bindings for receiver typing: parameters (promoted constructor parameters are also
; properties), properties, `catch (E $e)`, `$x instanceof Foo`, and assignments
; (`$x = new Foo`, `$this->x = $x`).
(simple_parameter
  name: (variable_name) @bind.name) @bind.param
(property_promotion_parameter
  name: (variable_name) @bind.name) @bind.promoted
(property_declaration) @bind.property
(catch_clause
  type: (type_list) @bind.type
  name: (variable_name) @bind.name) @bind.catch
(binary_expression
  left: (variable_name) @bind.left
  operator: "instanceof"
  right: (_) @bind.right) @bind.instanceof
(assignment_expression
  left: [(variable_name) (member_access_expression)] @bind.left
  right: (_) @bind.right) @bind.assign

; Anonymous classes (`new class { ... }`): what they declare is not an entity; their code
; belongs to the enclosing named definition.
(anonymous_class) @anon
