//! `cds-build`: index a repository. See `cds-build --help` and cds-build(1).

fn main() -> std::process::ExitCode {
    // Only the builder parses in bulk; the query tools stay free of mimalloc's start-up.
    cds::extract::tree::use_fast_allocator();
    cds::cli::main(&cds::build::cli::TOOL, cds::build::cli::run)
}
