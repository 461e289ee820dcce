; What cds extracts from a Rust file: definitions, `impl` blocks, `use` / `mod` / `extern crate`,
; calls and typed bindings. Capture names are read by lib/lang/rust/extract.rs, which nests the
; matches by byte range and reads the shapes a query cannot express (use trees, paths, types,
; attributes and doc comments before an item).

; Definitions: struct, enum, union and trait are class-like, fn is function-like. Trait method
; signatures without a body (`function_signature_item`) are not entities.
(function_item name: (identifier) @def.name) @def.function
(struct_item name: (type_identifier) @def.name) @def.class
(enum_item name: (type_identifier) @def.name) @def.class
(union_item name: (type_identifier) @def.name) @def.class
(trait_item name: (type_identifier) @def.name) @def.class

; An inline `mod m { ... }` is a namespace; `mod m;` declares a module file (an import).
(mod_item name: (identifier) @def.name body: (declaration_list)) @def.module
(mod_item name: (identifier) @import.name !body) @import.mod

; `impl Type { }` and `impl Trait for Type { }`: methods written outside their type.
(impl_item type: (_) @impl.type) @impl

; Imports; the use tree is read in Rust.
(use_declaration) @import
(extern_crate_declaration) @import

; Calls (macros and struct literals are not calls). A macro's arguments are parsed again as an
; expression for the calls they hold.
(call_expression function: (_) @call.callee) @call
(macro_invocation (token_tree) @macro.args) @macro

; Bindings for receiver typing: `let x = Foo::new();`, `let x: Foo = ..`, `x: &Foo` parameters,
; struct and union fields.
(let_declaration
  pattern: (identifier) @bind.left
  type: (_)? @bind.type
  value: (_)? @bind.right) @bind
(parameter pattern: (identifier) @bind.left type: (_) @bind.type) @bind
(field_declaration name: (field_identifier) @bind.left type: (_) @bind.type) @bind
