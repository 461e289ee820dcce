//! Rust: the tree-sitter grammar and `queries/rust/facts.scm` -> [`FileFacts`] (`extract`), and
//! the language's module rules for the linker (`resolve`).

mod extract;
mod resolve;

use crate::extract::{FileFacts, tree};

pub use extract::FACTS_QUERY;
pub use resolve::Resolver;

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_rust::LANGUAGE.into()
}

/// A reusable extractor: one per thread.
pub struct Extractor(tree::Parsing);

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    /// A new extractor with the grammar loaded.
    pub fn new() -> Extractor {
        Extractor(tree::Parsing::new(&language()))
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, src: &[u8]) -> FileFacts {
        extract::extract(&mut self.0.parser, src)
    }
}

#[cfg(test)]
mod tests;
