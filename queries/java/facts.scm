; What cds extracts from a Java file: definitions, the package, imports, calls and the typed
; bindings that give receivers their class. Capture names are read by lib/lang/java.rs, which
; nests captures by byte range and reads the shapes a query cannot express (dotted names,
; modifiers, generics, anonymous class bodies).

; Class-like definitions (DESIGN.md §8): class, interface, enum, record, annotation type.
(class_declaration
  name: (identifier) @def.name
  body: (class_body) @def.body) @def.class
(interface_declaration
  name: (identifier) @def.name
  body: (interface_body) @def.body) @def.class
(enum_declaration
  name: (identifier) @def.name
  body: (enum_body) @def.body) @def.class
(record_declaration
  name: (identifier) @def.name
  body: (class_body) @def.body) @def.class
(annotation_type_declaration
  name: (identifier) @def.name
  body: (annotation_type_body) @def.body) @def.class

; Function-like definitions: methods (abstract and interface ones have no body), constructors
; (named like their class), records' compact constructors, annotation type elements.
(method_declaration
  name: (_) @def.name) @def.function
(constructor_declaration
  name: (identifier) @def.name
  body: (constructor_body) @def.body) @def.function
(compact_constructor_declaration
  name: (identifier) @def.name
  body: (block) @def.body) @def.function
; An annotation type's elements are declared as methods (JLS 9.6.1): `String value();`.
(annotation_type_element_declaration
  name: (_) @def.name) @def.function

; `package a.b;` and imports; their names are read in Rust.
(package_declaration) @package
(import_declaration) @import

; Calls: `f()`, `a.b.f()`, `this.f()`, `super.f()`, `make().run()`, `new Foo()`,
; `this(...)` and `super(...)` in a constructor, method references.
(method_invocation
  name: (_) @call.name) @call
(object_creation_expression
  type: (_) @call.type) @call.new
(explicit_constructor_invocation
  constructor: (_) @call.ctor) @call.explicit
; Method references run the method they name: `this::m`, `Foo::m`, `Foo::new`.
(method_reference) @call.ref

; Typed bindings for receiver typing: fields, locals, parameters, for-each variables,
; try-with-resources, and assignments (`x = new Foo()`, `this.x = y`).
(field_declaration
  type: (_) @bind.type) @bind.decl
(constant_declaration
  type: (_) @bind.type) @bind.decl
(local_variable_declaration
  type: (_) @bind.type) @bind.decl
(formal_parameter
  type: (_) @bind.type
  name: (_) @bind.name) @bind.param
(spread_parameter
  (variable_declarator
    name: (_) @bind.name)) @bind.spread
(enhanced_for_statement
  type: (_) @bind.type
  name: (_) @bind.name) @bind.param
(resource
  type: (_) @bind.type
  name: (_) @bind.name) @bind.param
(instanceof_expression
  right: (_) @bind.type
  name: (_) @bind.name) @bind.param
(type_pattern
  (_) @bind.type
  .
  (identifier) @bind.name .) @bind.param
; A bounded type parameter stands for its (first) bound: `<T extends Node>`.
(type_parameter
  (type_identifier) @bind.name
  (type_bound
    .
    (_) @bind.type)) @bind.tparam
(assignment_expression
  left: [(identifier) (field_access)] @bind.left
  operator: "="
  right: (_) @bind.right) @bind.assign

; Anonymous class bodies (`new T() { ... }`, an enum constant's body): what they declare is
; not an entity; their code belongs to the enclosing named definition.
(object_creation_expression
  (class_body) @anon)
(enum_constant
  body: (class_body) @anon)
