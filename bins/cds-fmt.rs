//! `cds-fmt`: see `cds-fmt --help` and cds-fmt(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::fmt::cli::TOOL, cds::fmt::cli::run)
}
