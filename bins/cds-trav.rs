//! `cds-trav`: see `cds-trav --help` and cds-trav(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::trav::cli::TOOL, cds::trav::cli::run)
}
