//! `cds-get`: see `cds-get --help` and cds-get(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::get::cli::TOOL, cds::get::cli::run)
}
