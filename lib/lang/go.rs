//! Go: the tree-sitter grammar and `queries/go/facts.scm` -> [`FileFacts`], and the
//! language's resolution rules.

use tree_sitter::Parser;

use crate::extract::{FileFacts, Import, tree};
use crate::graph::scope::{self, Repo};

/// The tree-sitter language.
pub fn language() -> tree_sitter::Language {
    tree_sitter_go::LANGUAGE.into()
}

/// A reusable extractor: one per thread (tree-sitter parsers are not `Sync`).
pub struct Extractor {
    parser: Parser,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    /// A new extractor with the grammar loaded.
    pub fn new() -> Extractor {
        Extractor { parser: tree::parser_for(&language()) }
    }

    /// Extracts the facts of one file. Never fails: syntax errors are recovered from and
    /// counted in [`FileFacts::syntax_errors`].
    pub fn extract(&mut self, src: &[u8]) -> FileFacts {
        let parsed = tree::parse(&mut self.parser, src);
        tree::base_facts(src, parsed.as_ref().map(|t| t.root_node()))
    }
}

/// Go's module rules for the linker (see [`crate::graph::scope`]).
pub struct Resolver {}

impl Resolver {
    /// Reads what the rules need from the repository.
    pub fn new(_repo: &Repo) -> Resolver {
        Resolver {}
    }
}

impl scope::Resolver for Resolver {
    fn import_files(&self, _repo: &Repo, _file: u32, _imp: &Import) -> Vec<u32> {
        Vec::new()
    }
}
