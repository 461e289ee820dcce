//! Search: the code-aware tokenizer and the BM25 content index.

pub mod bm25;
pub mod names;
pub mod tokenize;
