//! `cds-kit`'s command line: set a repository up for coding agents, or regenerate the examples.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;

use super::Agent;
use crate::cli::{self, Args, Common, Complete, Flag, Out, Positional, Status, Tool, common};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct KitArgs {
    common: Common,
    agents: Vec<Agent>,
    repo: Option<PathBuf>,
    dry_run: bool,
    examples: Option<PathBuf>,
}

impl Args for KitArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

/// The names `cds-kit` takes, `all` last.
const NAMES: &str = "claude, codex, gemini, cursor, vscode, opencode or all";

fn agent(a: &mut KitArgs, v: OsString) -> Result<(), String> {
    let name = v.to_str().ok_or("not valid UTF-8")?;
    let new: Vec<Agent> = match name {
        "all" => Agent::ALL.to_vec(),
        _ => vec![Agent::parse(name).ok_or_else(|| format!("expected {NAMES}"))?],
    };
    for agent in new {
        if !a.agents.contains(&agent) {
            a.agents.push(agent);
        }
    }
    Ok(())
}
fn repo(a: &mut KitArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.repo = Some(PathBuf::from(v.ok_or("a value is required")?));
    Ok(())
}
fn dry_run(a: &mut KitArgs, _: Option<&OsStr>) -> Result<(), String> {
    a.dry_run = true;
    Ok(())
}
fn examples(a: &mut KitArgs, v: Option<&OsStr>) -> Result<(), String> {
    a.examples = Some(PathBuf::from(v.ok_or("a value is required")?));
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<KitArgs> = Tool {
    name: "cds-kit",
    about: "Set a repository up for coding agents: cds-mcp and a guide to using cds",
    usage: &["cds-kit [OPTIONS] AGENT...", "cds-kit --examples DIR"],
    description: "cds-kit writes an agent kit into a repository (the current directory, or \
--repo DIR): the files that register cds-mcp with the agent, the way that agent documents, and \
a guide that tells the agent how to find code with cds (LocAgent's strategy: keywords, then \
cds-loc and cds-search, then cds-trav, then cds-get, with shell pipelines for agents that \
prefer the shell). AGENT is claude (Claude Code), codex (Codex CLI), gemini (Gemini CLI), \
cursor, vscode (VS Code with Copilot), opencode, or all. Where the agent can enforce it, the \
kit also limits the agent's shell to cds pipelines (cds tools, rg, jq, ast-grep, text filters): \
a Claude Code hook, a Gemini CLI policy, OpenCode permission rules, and for Codex, which has no \
command allow-list, a read-only sandbox.

It never overwrites what the user has. Into a JSON or TOML config that exists it merges only \
what is missing: the cds server entry and cds's list items; a key that is there keeps its \
value, and comments and layout are kept (JSON with comments and trailing commas is accepted). \
Into a Markdown guide file (AGENTS.md, GEMINI.md, .github/copilot-instructions.md) it writes \
its section between <!-- cds:begin --> and <!-- cds:end --> lines: appended to the file, or \
replaced where it is, never touching the text around it. A file that is cds's own (the Claude \
Code hook and sub-agent, the Gemini policy, the Cursor rule) is created when missing and left \
alone when the user's copy differs. Running it again changes nothing.

It prints one line per file: created, merged (with the keys added), appended or updated (the \
guide section), unchanged, or kept; then, on stderr, what is left for the user to do (build \
the index, trust the folder in the agent). A malformed config is reported with its line and \
column, and nothing is written at all: exit status 2.

The kits in cds's examples/agents/ are its output for an empty repository (cds-kit --examples \
examples/agents, which make kits runs); examples/agents/README.md explains each kit and the \
limits each agent can enforce.",
    positional: Some(Positional {
        name: "AGENT",
        doc: "claude, codex, gemini, cursor, vscode, opencode or all",
        many: true,
        complete: Complete::Nothing,
        apply: agent,
    }),
    flags: &[
        Flag::new("repo", "The repository to set up (default: the current directory)", repo)
            .value("DIR")
            .complete(Complete::Dir),
        Flag::new("dry-run", "Say what would be written; write nothing", dry_run).short('n'),
        Flag::new("examples", "Write every kit afresh into DIR/<kit>/ (make kits)", examples)
            .value("DIR")
            .complete(Complete::Dir)
            .long_doc(
                "Write every kit as it is for a repository with none of its files into \
DIR/claude-code, DIR/codex, DIR/gemini-cli, DIR/cursor, DIR/vscode and DIR/opencode, replacing \
what is there. make kits regenerates examples/agents/ this way; a test fails when the committed \
kits differ.",
            ),
        common::quiet(),
    ],
    examples: &[
        ("Set the repository up for Codex", "cds-kit codex && cds-build"),
        ("Every agent at once, after a look at what it would do", "cds-kit -n all && cds-kit all"),
        ("Another repository", "cds-kit --repo ~/src/shop gemini claude"),
        ("Regenerate the committed kits", "cds-kit --examples examples/agents"),
    ],
    see_also: &["cds(7)", "cds-mcp(1)", "cds-build(1)"],
};

/// Runs `cds-kit`.
pub fn run(args: KitArgs) -> crate::Result<Status> {
    let mut out = Out::new(&args.common);
    if let Some(dir) = &args.examples {
        if !args.agents.is_empty() || args.repo.is_some() || args.dry_run {
            return Err(crate::Error::usage(
                "--examples writes every kit: it takes no AGENT, --repo or --dry-run",
            ));
        }
        for path in super::write_examples(dir)? {
            writeln!(out, "wrote {}", path.display())?;
        }
        out.finish()?;
        return Ok(Status::Found);
    }
    if args.agents.is_empty() {
        return Err(crate::Error::usage(format!("name the agents to set up: {NAMES}")));
    }
    let repo = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    if !repo.is_dir() {
        return Err(crate::Error::msg(format!(
            "{}: not a directory: pass the repository to set up with --repo DIR",
            repo.display()
        )));
    }
    let planned = match super::plan(&repo, &args.agents) {
        Ok(planned) => planned,
        Err(mut errors) => {
            let last = errors.pop().expect("at least one error");
            for e in errors {
                cli::msg::error(e);
            }
            return Err(crate::Error::msg(format!("{last} (nothing was written)")));
        }
    };
    for p in &planned {
        if !args.dry_run {
            super::write(&repo, std::slice::from_ref(p))?;
        }
        writeln!(out, "{}", p.line(args.dry_run))?;
    }
    out.finish()?;
    let wrote = planned.iter().any(|p| p.text.is_some());
    if wrote && !args.dry_run {
        let abs = std::fs::canonicalize(&repo).unwrap_or_else(|_| repo.clone());
        if !repo.join(".cds").is_dir() {
            cli::msg::note(format!(
                "next: run cds-build in {} (the server reads its index)",
                repo.display()
            ));
        }
        for agent in &args.agents {
            let step = agent.next_step().replace("<repo>", &abs.display().to_string());
            cli::msg::note(format!("next: {step}"));
        }
    }
    Ok(Status::Found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(cli::flags::check(&TOOL), Vec::<String>::new());
    }
}
