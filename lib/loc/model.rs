//! The learned part of `cds-loc`: the features of each candidate, per level, and the linear
//! scores of the fitted weights in `loc/weights.rs`.
//!
//! Every feature is language-neutral: it reads the graph (kinds, containment, calls,
//! inheritance), entity IDs (`path/file.ext:Class.method`) and the search signals of
//! [`crate::search::rank`]. The three levels are ranked in order, each one's result a
//! feature of the next: files first, then functions (with their file's rank), then modules
//! (with their file's rank and their best function's score).
//!
//! `bench/loc/fit.py` fits the weights from the features `cds-loc --features` dumps, and
//! writes `weights.rs`; the same features, computed here, are scored at run time.

/// Features of a file candidate.
pub const FILE_FEATURES: [&str; NF] = [
    "heur",        // the hand-set score of the first cds-loc (/100)
    "heur_lrank",  // ln(1 + its rank among files by that score)
    "exact",       // the issue names the file by path (/100)
    "fname",       // a query word is the file's name (/100)
    "bm25",        // BM25 of the whole file, over the best file's
    "bm_lrank",    // ln(1 + its BM25 rank among files)
    "path",        // query words among its directory names and stem, over the best file's
    "best_ent",    // its best entity's hand-set score (/100)
    "rest_ent",    // the next three entities' (/100)
    "n_ev",        // ln(1 + entities with any evidence)
    "n_named",     // ln(1 + entities named in the issue)
    "best_fn_bm",  // best function BM25 in it, over the best function's
    "best_cls_bm", // best class BM25 in it, over the best class's
    "frame",       // ln(1 + traceback frames in it)
    "best_name",   // best name match among its entities (/100)
    "aux",         // documentation, examples, benchmarks, build scripts
    "package",     // a package's index file (`__init__.py`, `index.js`, `mod.rs`)
    "size",        // ln(1 + entities)
    "depth",       // path components
    "test_ptr",    // a test the issue names (`test_foo`, `tests/test_foo.py`) points at it
    "code_bm",     // BM25 of the identifiers only, over the best file's
    "title_bm",    // BM25 of the title and exception lines only, over the best file's
    "stem_twin",   // ln(1 + other top-5 files with the same file name, in other directories)
    "dir_share",   // ln(1 + other top-10 files in the same directory)
    "age",         // ln(1 + commits since it last changed), from the repository's history
    "churn",       // ln(1 + commits among the last 300 that changed it)
    "msg_bm",      // ln(1 + BM25 of the issue over the messages of the commits that changed it)
];
/// Number of file features.
pub const NF: usize = 27;

/// Features of a function candidate (a function or method not nested in another function).
pub const FUNCTION_FEATURES: [&str; NE] = [
    "heur",        // the hand-set score (/100)
    "heur_lrank",  // ln(1 + its rank among functions by that score)
    "exact",       // named by ID or path (/100)
    "frame",       // a traceback frame names it (/100)
    "qual",        // a dotted name matches its qualified name (/100)
    "name",        // its name is in the issue (/100)
    "bm25",        // BM25 over its code, over the best function's
    "bm_lrank",    // ln(1 + its BM25 rank among functions)
    "graph",       // evidence received from what it calls and what calls it (/100)
    "class",       // evidence of its class (/100)
    "parent_name", // its class is named in the issue (/100)
    "parent_bm",   // BM25 of its class, over the best class's
    "in_file",     // ln(1 + its rank by hand-set score within its file)
    "method",      // defined in a class
    "dunder",      // `__name__`
    "private",     // `_name`
    "size",        // ln(1 + lines)
    "ctor",        // a constructor (`__init__`, `constructor`, named like its class)
    "file_lrank",  // ln(1 + its file's rank by the file model)
    "file_gap",    // its file's model score minus the best file's (at least -20)
    "file_top1",   // its file is the first
    "aux",         // in documentation, examples, benchmarks
    "path",        // its file's path evidence
    "code_bm",     // BM25 of the identifiers only, over the best function's
    "n_callers",   // ln(1 + its callers)
    "nbr_named",   // ln(1 + functions it calls or is called by that the issue names)
    "sib_named",   // ln(1 + other methods of its class the issue names)
    "title_bm",    // BM25 of the title and exception lines only, over the best function's
    "in_file_bm",  // ln(1 + its BM25 rank within its file)
    "doc_bm",      // BM25 of the terms over its docstring alone, over the best one's
];
/// Number of function features.
pub const NE: usize = 30;

/// Features of a module candidate (a top-level class or function).
pub const MODULE_FEATURES: [&str; NM] = [
    "heur",       // the hand-set score, file rank included (/100)
    "heur_lrank", // ln(1 + its rank by that score)
    "own_name",   // its own name matches (/100)
    "bm25",       // its own BM25, over the best of its kind
    "bm_lrank",   // ln(1 + its BM25 rank among its kind)
    "best_mem",   // best hand-set score among it and its members (/100)
    "n_ev",       // ln(1 + members with evidence)
    "is_class",   // a class
    "size",       // ln(1 + lines)
    "file_lrank", // ln(1 + its file's rank by the file model)
    "file_gap",   // its file's model score minus the best file's (at least -20)
    "file_top1",  // its file is the first
    "fn_gap",     // its best function's model score minus the best function's (at least -20)
    "graph",      // evidence received along the graph (/100)
    "aux",        // in documentation, examples, benchmarks
    "code_bm",    // BM25 of the identifiers only, over the best of its kind
    "n_named",    // ln(1 + its members the issue names)
    "title_bm",   // BM25 of the title and exception lines only, over the best of its kind
];
/// Number of module features.
pub const NM: usize = 18;

/// Lowest value of a score gap feature (and the value for a missing file or function).
pub const GAP_FLOOR: f32 = -20.0;
/// Files a level below may refer to; a file past them ranks here.
pub const FILE_CANDIDATES: usize = 100;

/// `ln(1 + rank)`, the shape every rank feature has.
pub fn lrank(rank: usize) -> f32 {
    (1.0 + rank as f32).ln()
}

/// A linear score.
pub fn dot(w: &[f32], x: &[f32]) -> f32 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_weights_fit() {
        for names in [&FILE_FEATURES[..], &FUNCTION_FEATURES[..], &MODULE_FEATURES[..]] {
            let mut v = names.to_vec();
            v.sort();
            v.dedup();
            assert_eq!(v.len(), names.len());
        }
        assert_eq!(super::super::weights::FILE.len(), NF);
        assert_eq!(super::super::weights::FUNCTION.len(), NE);
        assert_eq!(super::super::weights::MODULE.len(), NM);
    }
}
