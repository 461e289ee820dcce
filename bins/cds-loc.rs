//! `cds-loc`: rank the code locations an issue is about. See `cds-loc --help` and cds-loc(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::loc::cli::TOOL, cds::loc::cli::run)
}
