//! cds (Codebase DeepSearch): a code graph and search index for a source repository, queried by
//! small composable tools.
//!
//! Data flow, one module per stage:
//!
//! * [`walk`]: the repository's files, with ignore rules;
//! * [`extract`] (through [`lang`]): file bytes -> per-file facts (definitions, imports, calls);
//! * [`graph`]: facts of all files -> the linked graph (name resolution);
//! * [`index`]: the on-disk index (write atomically, read by memory-mapping);
//! * [`build`]: the `cds-build` pipeline tying the above together, incrementally.

pub mod build;
pub mod cli;
pub mod error;
pub mod extract;
pub mod fmt;
pub mod get;
pub mod graph;
pub mod id;
pub mod index;
pub mod lang;
pub mod loc;
pub mod locagent;
pub mod mcp;
pub mod record;
pub mod search;
pub mod trav;
pub mod walk;

pub use error::{Error, Result};
