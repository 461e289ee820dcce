//! `cds-search`: find the entities a query is about. See `cds-search --help` and cds-search(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::search::cli::TOOL, cds::search::cli::run)
}
