//! `cds-mcp`: see `cds-mcp --help` and cds-mcp(1).

fn main() -> std::process::ExitCode {
    cds::cli::main(&cds::mcp::cli::TOOL, cds::mcp::cli::run)
}
