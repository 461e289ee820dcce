//! The committed man pages and completions are generated from the flag tables: a test fails when
//! they are stale (`make man completions` regenerates them).

use std::path::Path;

use crate::util::{TestCommand, bin};

/// Every tool with a generated man page and completions.
pub const TOOLS: &[&str] =
    &["cds-build", "cds-search", "cds-trav", "cds-get", "cds-fmt", "cds-loc", "cds-mcp", "cds-kit"];

fn generated(tool: &str, kind: &str) -> String {
    TestCommand::new(tool, Path::new(env!("CARGO_MANIFEST_DIR"))).args(["--generate", kind]).ok()
}

fn committed(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}: run make man completions", p.display()))
}

#[test]
fn man_pages_and_completions_are_current() {
    let mut stale = Vec::new();
    for tool in TOOLS {
        let _ = bin(tool);
        for (kind, rel) in [
            ("man", format!("man/{tool}.1")),
            ("complete-bash", format!("completions/bash/{tool}")),
            ("complete-zsh", format!("completions/zsh/_{tool}")),
            ("complete-fish", format!("completions/fish/{tool}.fish")),
        ] {
            if generated(tool, kind) != committed(&rel) {
                stale.push(rel);
            }
        }
    }
    assert!(stale.is_empty(), "stale generated files (run `make man completions`): {stale:?}");
}

#[test]
fn man_pages_pass_mandoc_lint() {
    if std::process::Command::new("mandoc").arg("-V").output().is_err() {
        eprintln!("mandoc not installed: lint skipped");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let mut pages: Vec<String> = TOOLS.iter().map(|t| format!("{t}.1")).collect();
    pages.push("cds.7".to_string());
    for page in pages {
        let out = std::process::Command::new("mandoc")
            .args(["-T", "lint", "-W", "warning"])
            .arg(dir.join(&page))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(text.trim().is_empty(), "mandoc lint of {page}:\n{text}");
    }
}
