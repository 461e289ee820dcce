//! `cds-kit` on temporary repositories: a fresh one, one with the user's own configs (merged,
//! their bytes kept), a second run (no change), malformed configs (nothing written), and the
//! committed kits in `examples/agents/` (they must be what `cds-kit --examples` writes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::Dir;

/// Every file under `root`, relative path to bytes.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn read(d: &Dir, rel: &str) -> String {
    std::fs::read_to_string(d.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Asserts that every byte the user wrote is still in `new`, in order (cds-kit only inserts).
fn assert_kept(old: &str, new: &str, what: &str) {
    let mut rest = old.bytes().peekable();
    for b in new.bytes() {
        if rest.peek() == Some(&b) {
            rest.next();
        }
    }
    assert!(rest.peek().is_none(), "{what}: the user's text is not all kept:\n{new}");
}

const KIT_FILES: [&str; 14] = [
    ".mcp.json",
    ".claude/settings.json",
    ".claude/hooks/cds-allow-list.py",
    ".claude/agents/code-retriever.md",
    ".codex/config.toml",
    "AGENTS.md",
    ".gemini/settings.json",
    ".gemini/policies/cds.toml",
    "GEMINI.md",
    ".cursor/mcp.json",
    ".cursor/rules/cds.mdc",
    ".vscode/mcp.json",
    ".github/copilot-instructions.md",
    "opencode.json",
];

#[test]
fn committed_kits_are_what_generation_writes() {
    let out = Dir::new("kit-examples");
    out.cmd("cds-kit").args(["--examples", "."]).ok();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents");
    let generated = tree(&out.root);
    let mut stale = Vec::new();
    for (rel, bytes) in &generated {
        if std::fs::read(examples.join(rel)).ok().as_ref() != Some(bytes) {
            stale.push(rel.display().to_string());
        }
    }
    // And no file in a kit directory that generation no longer writes.
    for kit in ["claude-code", "codex", "gemini-cli", "cursor", "vscode", "opencode"] {
        for rel in tree(&examples.join(kit)).keys() {
            if !generated.contains_key(&Path::new(kit).join(rel)) {
                stale.push(format!("{kit}/{} (not generated)", rel.display()));
            }
        }
    }
    assert!(stale.is_empty(), "stale kits in examples/agents (run `make kits`): {stale:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let hook = examples.join("claude-code/.claude/hooks/cds-allow-list.py");
        assert_eq!(std::fs::metadata(hook).unwrap().permissions().mode() & 0o111, 0o111);
    }
}

#[test]
fn fresh_repository_then_a_second_run_that_changes_nothing() {
    let d = Dir::new("kit-fresh");
    let first = d.cmd("cds-kit").arg("all").ok();
    let created: Vec<&str> =
        first.lines().map(|l| l.strip_prefix("created").expect(l).trim()).collect();
    assert_eq!(created, KIT_FILES);
    let after_first = tree(&d.root);
    // Each file is the committed example's (AGENTS.md is shared by Codex and OpenCode).
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents");
    for (kit, rel) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/config.toml"),
        ("opencode", "AGENTS.md"),
        ("vscode", ".vscode/mcp.json"),
    ] {
        assert_eq!(
            after_first[Path::new(rel)],
            std::fs::read(examples.join(kit).join(rel)).unwrap()
        );
    }

    let second = d.cmd("cds-kit").arg("all").output();
    assert_eq!(second.status.code(), Some(0));
    let stdout = String::from_utf8(second.stdout).unwrap();
    for (line, file) in stdout.lines().zip(KIT_FILES) {
        assert_eq!(line.split_whitespace().collect::<Vec<_>>(), ["unchanged", file]);
    }
    assert!(second.stderr.is_empty(), "nothing to do, nothing to say");
    assert_eq!(tree(&d.root), after_first);
}

#[test]
fn dry_run_says_what_it_would_do_and_writes_nothing() {
    let d = Dir::new("kit-dry");
    d.write("AGENTS.md", "# Our agents\n");
    let out = d.cmd("cds-kit").args(["-n", "codex", "--repo", "."]).ok();
    assert_eq!(
        out,
        "would create  .codex/config.toml\nwould append  AGENTS.md: added the cds section\n"
    );
    assert_eq!(tree(&d.root).len(), 1);
    assert_eq!(read(&d, "AGENTS.md"), "# Our agents\n");
}

#[test]
fn existing_configs_are_merged_and_the_rest_kept_byte_for_byte() {
    let d = Dir::new("kit-merge");
    let mcp = "{\n    \"mcpServers\": {\n        \"github\": {\n            \"command\": \"gh-mcp\"\n        }\n    }\n}\n";
    let settings = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(make:*)\", \"Bash(rg:*)\"]\n  }\n}\n";
    let codex = "# my Codex setup\nmodel = \"o3\"  # fast enough\nsandbox_mode = \"workspace-write\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--port\", \"0\"]\n";
    let gemini = "// Gemini settings\n{\n  \"theme\": \"Dracula\", // dark\n  \"mcpServers\": {\n    \"cds\": {\"command\": \"/opt/cds/bin/cds-mcp\"},\n  },\n}\n";
    let vscode = "{\n\t\"inputs\": [],\n\t\"servers\": {}\n}\n";
    let opencode = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"permission\": {\"edit\": \"ask\", \"bash\": \"ask\"}\n}\n";
    let agents = "# Conventions\n\nRun `make test` before committing.\n";
    d.write(".mcp.json", mcp)
        .write(".claude/settings.json", settings)
        .write(".codex/config.toml", codex)
        .write(".gemini/settings.json", gemini)
        .write(".vscode/mcp.json", vscode)
        .write("opencode.json", opencode)
        .write("AGENTS.md", agents)
        .write(".cursor/rules/cds.mdc", "my own rule\n");

    let out = d.cmd("cds-kit").arg("all").ok();
    let lines: BTreeMap<&str, &str> = out
        .lines()
        .map(|l| {
            let (verb, rest) = l.split_once(' ').unwrap();
            let file = rest.trim().split(':').next().unwrap();
            (file, verb)
        })
        .collect();
    for (file, verb) in [
        (".mcp.json", "merged"),
        (".claude/settings.json", "merged"),
        (".codex/config.toml", "merged"),
        (".gemini/settings.json", "unchanged"),
        (".vscode/mcp.json", "merged"),
        ("opencode.json", "merged"),
        ("AGENTS.md", "appended"),
        (".cursor/rules/cds.mdc", "kept"),
        ("GEMINI.md", "created"),
    ] {
        assert_eq!(lines.get(file), Some(&verb), "{file}:\n{out}");
    }
    assert!(
        out.contains(
            "merged        .claude/settings.json: added permissions.allow (+9), permissions.deny, \
             enabledMcpjsonServers, hooks.PreToolUse\n"
        ),
        "{out}"
    );
    assert!(out.contains("merged        opencode.json: added mcp.cds; left as you have it: permission.bash (not an object)\n"), "{out}");

    // Exactly the server entry is new, indented like its neighbour.
    assert_eq!(
        read(&d, ".mcp.json"),
        "{\n    \"mcpServers\": {\n        \"github\": {\n            \"command\": \"gh-mcp\"\n        },\n        \"cds\": {\n            \"type\": \"stdio\",\n            \"command\": \"cds-mcp\",\n            \"args\": [],\n            \"env\": {}\n        }\n    }\n}\n"
    );
    // The user's sandbox mode stays; the server table is appended after theirs.
    assert_eq!(
        read(&d, ".codex/config.toml"),
        "# my Codex setup\nmodel = \"o3\"  # fast enough\nsandbox_mode = \"workspace-write\"\n\
         approval_policy = \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\
         args = [\"--port\", \"0\"]\n\n[mcp_servers.cds]\ncommand = \"cds-mcp\"\n\
         enabled_tools = [\"cds_locate\", \"cds_search\", \"cds_traverse\", \"cds_retrieve\"]\n"
    );
    // Their own cds entry (another path) is theirs: left as it is, comments and all.
    assert_eq!(read(&d, ".gemini/settings.json"), gemini);
    assert_eq!(read(&d, ".cursor/rules/cds.mdc"), "my own rule\n");
    assert_eq!(
        read(&d, ".vscode/mcp.json"),
        "{\n\t\"inputs\": [],\n\t\"servers\": {\n\t\t\"cds\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"cds-mcp\",\n\t\t\t\"args\": [\n\t\t\t\t\"--index\",\n\t\t\t\t\"${workspaceFolder}/.cds\"\n\t\t\t]\n\t\t}\n\t}\n}\n"
    );
    for (rel, old) in [(".claude/settings.json", settings), ("opencode.json", opencode)] {
        let new = read(&d, rel);
        assert_kept(old, &new, rel);
        serde_json::from_str::<serde_json::Value>(&new).unwrap_or_else(|e| panic!("{rel}: {e}"));
    }
    let claude: serde_json::Value =
        serde_json::from_str(&read(&d, ".claude/settings.json")).unwrap();
    assert_eq!(claude["model"], "opus");
    assert_eq!(claude["permissions"]["allow"][0], "Bash(make:*)");
    let agents_md = read(&d, "AGENTS.md");
    assert!(agents_md.starts_with(&format!("{agents}\n<!-- cds:begin")), "{agents_md}");
    assert!(agents_md.ends_with("<!-- cds:end -->\n"));

    // Idempotent on the merged files too.
    let before = tree(&d.root);
    let again = d.cmd("cds-kit").arg("all").ok();
    assert!(again.lines().all(|l| l.starts_with("unchanged") || l.starts_with("kept")), "{again}");
    assert_eq!(tree(&d.root), before);
}

#[test]
fn an_old_cds_section_is_replaced_in_place() {
    let d = Dir::new("kit-section");
    d.write("GEMINI.md", "# Top\n<!-- cds:begin old -->\nold guide\n<!-- cds:end -->\n# Bottom\n");
    let out = d.cmd("cds-kit").arg("gemini").ok();
    assert!(out.contains("updated       GEMINI.md: replaced the cds section\n"), "{out}");
    let text = read(&d, "GEMINI.md");
    assert!(text.starts_with("# Top\n<!-- cds:begin: written by cds-kit"), "{text}");
    assert!(text.ends_with("<!-- cds:end -->\n# Bottom\n"), "{text}");
    assert!(!text.contains("old guide") && text.contains("### Step 2: A first ranking"));
}

#[test]
fn malformed_configs_stop_everything_with_the_file_and_the_fix() {
    for (rel, bad, says) in [
        (
            ".gemini/settings.json",
            "{\n  \"mcpServers\": {\n    \"x\": 1\n    \"y\": 2\n}\n",
            "not valid JSON (line 4, column 5: expected , or })",
        ),
        (".codex/config.toml", "[mcp_servers.cds\ncommand = \"x\"\n", "not valid TOML"),
        (".vscode/mcp.json", "[\"servers\"]", "the top level is not a JSON object"),
        (
            "AGENTS.md",
            "<!-- cds:begin -->\nhalf a section\n",
            "has a `<!-- cds:begin` line but no `<!-- cds:end -->` after it",
        ),
    ] {
        let d = Dir::new("kit-bad");
        d.write(rel, bad);
        let err = d.cmd("cds-kit").arg("all").stderr_of(2);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("cds-kit: {rel}: {says}")), "{err}");
        assert!(
            err.contains("run cds-kit again") && err.ends_with("(nothing was written)\n"),
            "{err}"
        );
        let files = tree(&d.root);
        assert_eq!(files.len(), 1, "nothing else was written: {:?}", files.keys());
        assert_eq!(files[Path::new(rel)], bad.as_bytes());
    }
}

#[test]
fn bad_arguments_and_unwritable_places() {
    let d = Dir::new("kit-args");
    let err = d.cmd("cds-kit").arg("emacs").stderr_of(2);
    assert!(
        err.contains(
            "invalid AGENT 'emacs': expected claude, codex, gemini, cursor, vscode, opencode or all"
        ),
        "{err}"
    );
    let err = d.cmd("cds-kit").stderr_of(2);
    assert!(err.contains("name the agents to set up"), "{err}");
    let err = d.cmd("cds-kit").args(["--repo", "no/such/dir", "codex"]).stderr_of(2);
    assert!(err.contains("no/such/dir: not a directory: pass the repository"), "{err}");
    let err = d.cmd("cds-kit").args(["--examples", "x", "codex"]).stderr_of(2);
    assert!(err.contains("--examples writes every kit"), "{err}");
    // A file where the kit needs a directory: the error names it, and the run stops there.
    d.write(".codex", "not a directory");
    let err = d.cmd("cds-kit").arg("codex").stderr_of(2);
    assert!(err.starts_with("cds-kit: cannot read .codex/config.toml: "), "{err}");
}
