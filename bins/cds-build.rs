//! `cds-build`: index a repository. See `cds-build --help` and cds-build(1).

/// Every allocation of a build goes through mimalloc (tree-sitter's too, below): a rebuild
/// after an edit makes and drops the name tables of every file, and under glibc's allocator
/// malloc and free were a sixth of its time. See `use_fast_allocator` for the figures.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // Only the builder parses in bulk; the query tools stay free of mimalloc's start-up.
    cds::extract::tree::use_fast_allocator();
    cds::cli::main(&cds::build::cli::TOOL, cds::build::cli::run)
}
