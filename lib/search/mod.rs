//! Search: the code-aware tokenizer, the BM25 content index, name lookups, query understanding
//! and the hierarchical ranking behind `cds-search`.

pub mod bm25;
pub mod cli;
pub mod frames;
pub mod glob;
pub mod names;
pub mod query;
pub mod rank;
pub mod tokenize;
