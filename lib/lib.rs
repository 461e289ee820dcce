//! cds (Codebase DeepSearch): a code graph and search index for a source repository, queried by
//! small composable tools.
//!
//! Building the index, one module per stage of the data flow:
//!
//! * [`walk`]: the repository's files, with ignore rules; [`history`]: its recent commits
//!   (through `git`, when the root is in a work tree), a prior for `cds-loc`;
//! * [`extract`] (through [`lang`]: Python, JavaScript/TypeScript, Java, Go, Rust, C, C++, Ruby,
//!   PHP): file bytes -> per-file facts (definitions, imports, calls, bindings), with
//!   tree-sitter and `queries/` (matched by one tree walk, `lang::matcher`);
//! * [`graph`]: facts of all files -> the linked graph (cds's resolution in `graph::link`,
//!   LocAgent v2.3's in `graph::compat`);
//! * [`index`]: the on-disk index: columns in rkyv archives, fst maps, BM25 postings (a base,
//!   and the changed documents' postings in a delta over it after a small rebuild), contents,
//!   written atomically as generations and read by memory-mapping (the graph, the postings
//!   and the fst maps' nodes checked against per-block checksums as they are read, so damage
//!   is an error, not a wrong answer or a crash);
//! * [`build`]: the `cds-build` pipeline tying the above together, incrementally and in
//!   parallel, streaming each file's content (and, in big repositories, its term counts) to
//!   disk as it is parsed.
//!
//! Answering from it:
//!
//! * [`search`]: the code-aware tokenizer, BM25, name lookups, query understanding and the
//!   hierarchical ranking of `cds-search`;
//! * [`trav`], [`get`], [`fmt`]: walks over the graph, code views, renderings;
//! * [`loc`]: `cds-loc`, issue -> ranked files, modules and functions;
//! * [`locagent`]: LocAgent's three tools (its exact text formats) over a cds index;
//! * [`mcp`]: `cds-mcp`, the same operations as MCP tools over stdio;
//! * [`kit`]: `cds-kit`, the agent kits (Claude Code, Codex, Gemini CLI, Cursor, VS Code,
//!   OpenCode) and their merge into a repository's own configs;
//! * [`record`], [`id`]: the entity record and ID form every tool reads and writes;
//! * [`cli`]: the command-line layer all binaries share (flag tables, help, man pages,
//!   completions, output, messages, exit codes), and [`error`]: the one error type.

pub mod build;
pub mod cli;
pub mod error;
pub mod extract;
pub mod fmt;
pub mod get;
pub mod graph;
pub mod history;
pub mod id;
pub mod index;
pub mod kit;
pub mod lang;
pub mod loc;
pub mod locagent;
pub mod mcp;
pub mod record;
pub mod search;
pub mod trav;
pub mod walk;

pub use error::{Error, Result};
