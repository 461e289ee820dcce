//! `cds-kit`: see `cds-kit --help` and cds-kit(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::kit::cli::TOOL, cds::kit::cli::run)
}
