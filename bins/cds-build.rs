//! `cds-build`: index a repository. See `cds-build --help` and cds-build(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::build::cli::TOOL, cds::build::cli::run)
}
