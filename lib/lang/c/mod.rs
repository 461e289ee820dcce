//! C and C++: the tree-sitter-c and tree-sitter-cpp grammars -> [`crate::extract::FileFacts`], and the
//! languages' resolution rules (one family: a C++ file includes C headers, a C file may include
//! a header that the repository's C++ sources make C++).
//!
//! Entities (DESIGN.md §8): structs, unions and enums with a body (an anonymous one declared by
//! a `typedef` takes the typedef's name), C++ classes; function and method definitions, never
//! prototypes. An out-of-line `A::B::f()` is named by its qualifier as written (`A.B.f`, the
//! qualifier in [`crate::extract::Def::owner`]), template arguments dropped. C++ namespaces are
//! not part of any name: what a namespace holds sits at the file's top level, and the names the
//! file opens are kept in [`crate::extract::FileFacts::package`] (space-separated) for qualified calls.
//!
//! The syntax tree is walked by hand, with an explicit stack (declarators nest arbitrarily,
//! definitions hide in `#if` branches and `extern "C"` blocks, and generated files nest
//! expressions thousands deep): every node is visited once, so a file costs time linear in its
//! size, and C's file-scope initializers (constant tables, often hundreds of thousands of lines)
//! are skipped whole, since they cannot call anything.
//!
//! What resolution reads, beyond definitions and calls:
//! * `#include "x.h"` and `#include <x.h>` are imports of a module without a name, marked
//!   [`crate::extract::ImportForm::ReExport`] (inclusion is textual: what `x.h` includes is seen too), with
//!   [`crate::extract::Import::level`] 1 for the quoted form (searched beside the including file first) and 0 for
//!   the angle form; the resolver answers which included file declares a name
//!   ([`crate::graph::scope::Resolver::included`]) from an index of its own;
//! * a prototype (`int f(void);`, not `static`) of a function the file does not define is an
//!   import of that name from module `""`: the resolver leads it to the definition in the
//!   repository ([`resolve`]), so a call reaches a definition through what the file's includes
//!   declare, never by the name alone;
//! * a file-local function (`static`, or in a C++ anonymous namespace) carries the decorator
//!   `static`: it is reached in its own file only.

pub mod extract;
pub mod resolve;

pub use extract::Extractor;
pub use resolve::Resolver;

/// The tree-sitter C language.
pub fn c_language() -> tree_sitter::Language {
    tree_sitter_c::LANGUAGE.into()
}

/// The tree-sitter C++ language.
pub fn cpp_language() -> tree_sitter::Language {
    tree_sitter_cpp::LANGUAGE.into()
}

#[cfg(test)]
mod tests;
