//! Languages cds understands: one module each (grammar, queries, extraction rules).
//!
//! Only the builder links the grammars; query tools never touch this module's parsers.

pub mod python;

use std::path::Path;

use crate::extract::FileFacts;

/// A source language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Python 3 (and the Python 2 it can recover from).
    Python,
}

impl Lang {
    /// The language of a path, by extension.
    pub fn of_path(path: &Path) -> Option<Lang> {
        match path.extension()?.as_encoded_bytes() {
            b"py" => Some(Lang::Python),
            _ => None,
        }
    }

    /// Stable code stored in the index's file table.
    pub fn code(self) -> u8 {
        match self {
            Lang::Python => 1,
        }
    }

    /// Name for messages and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
        }
    }
}

/// Per-thread extractors for every language.
#[derive(Default)]
pub struct Extractors {
    python: Option<python::Extractor>,
}

impl Extractors {
    /// Extracts the facts of one file in the given language.
    pub fn extract(&mut self, lang: Lang, src: &[u8]) -> FileFacts {
        match lang {
            Lang::Python => self.python.get_or_insert_with(python::Extractor::new).extract(src),
        }
    }
}
