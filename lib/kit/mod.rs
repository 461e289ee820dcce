//! `cds-kit`: the agent kits (one per coding agent) and the code that writes them into a
//! repository without overwriting what the user has there.
//!
//! A kit is a list of files, each of one of these kinds:
//!
//! * a JSON or TOML config ([`Content::Json`], [`Content::Toml`]): a list of [`Op`]s, applied to
//!   the user's file if there is one (keys cds needs are added; a key that exists keeps its
//!   value; list items cds needs are appended when missing), or to an empty document;
//! * a guide section ([`Content::Section`]) in a Markdown file the agent reads (`AGENTS.md`,
//!   `GEMINI.md`, ...): kept between `<!-- cds:begin -->` and `<!-- cds:end -->`, appended to the
//!   user's file or replaced in place, never touching the text around it;
//! * a file that is cds's own ([`Content::Whole`]: the Claude hook and sub-agent, the Gemini
//!   policy, the Cursor rule): created when missing, left alone (and reported) when the user's
//!   copy differs.
//!
//! Every guide is made from one source text, [`GUIDE`], so they cannot drift; the committed kits
//! in `examples/agents/` are [`write_examples`]'s output (`make kits`), and a test fails when they
//! are stale. Running a kit twice changes nothing: the second run finds every key, item and
//! section in place.

pub mod cli;
mod json;
mod toml;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The guide every kit carries: LocAgent's localization strategy with cds's tools.
pub const GUIDE: &str = include_str!("guide.md");
/// The Claude Code PreToolUse hook: the Bash allow-list.
const HOOK: &str = include_str!("cds-allow-list.py");

/// The comment that opens a `.codex/config.toml` cds-kit creates (the only TOML kit file).
const CODEX_HEADER: &str = "\
# Written by cds-kit: the cds MCP server, and the closest Codex has to a shell allow-list: a
# read-only sandbox, with Codex asking before anything that needs more. Remove sandbox_mode and
# approval_policy to give Codex its usual write access.

";

/// The first line of a guide section (and what tells cds-kit the section is its own).
const BEGIN: &str = "<!-- cds:begin: written by cds-kit, which replaces this section; \
                     keep your own notes outside it -->";
const BEGIN_PREFIX: &str = "<!-- cds:begin";
const END: &str = "<!-- cds:end -->";

/// The coding agents cds has a kit for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code (Anthropic).
    Claude,
    /// Codex CLI (OpenAI).
    Codex,
    /// Gemini CLI (Google).
    Gemini,
    /// Cursor.
    Cursor,
    /// VS Code with GitHub Copilot.
    Vscode,
    /// OpenCode.
    Opencode,
}

/// The MCP tools the guides use (cds's own; LocAgent's three are served too, for LocAgent's
/// prompts, and left out where a client can list the tools it exposes to the model).
const CDS_TOOLS: [&str; 4] = ["cds_locate", "cds_search", "cds_traverse", "cds_retrieve"];

/// Programs an agent's shell may run when a client can limit it: the cds tools, the searchers
/// they pipe with, and text filters (the Claude hook's list).
const SHELL_PROGRAMS: [&str; 16] = [
    "cds-build",
    "cds-search",
    "cds-trav",
    "cds-get",
    "cds-fmt",
    "cds-loc",
    "rg",
    "jq",
    "ast-grep",
    "head",
    "tail",
    "sort",
    "uniq",
    "wc",
    "cut",
    "tr",
];

impl Agent {
    /// Every agent, in the order `all` sets them up.
    pub const ALL: [Agent; 6] =
        [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Cursor, Agent::Vscode, Agent::Opencode];

    /// The name on cds-kit's command line.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Vscode => "vscode",
            Agent::Opencode => "opencode",
        }
    }

    /// The kit's directory under `examples/agents/`.
    pub fn example_dir(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini-cli",
            Agent::Cursor => "cursor",
            Agent::Vscode => "vscode",
            Agent::Opencode => "opencode",
        }
    }

    /// The product's name.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::Vscode => "VS Code (Copilot)",
            Agent::Opencode => "OpenCode",
        }
    }

    /// The agent named `name` (its command-line name or its kit directory).
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name || a.example_dir() == name)
    }

    /// What the user does after cds-kit, to get the server running in this client.
    pub fn next_step(self) -> &'static str {
        match self {
            Agent::Claude => {
                "Claude Code: start `claude` in the repository and accept the folder trust \
                 dialog; project servers and settings load only in a trusted folder \
                 (`claude mcp list` then shows cds Connected)"
            }
            Agent::Codex => {
                "Codex: it reads .codex/config.toml only in a trusted project: accept the trust \
                 prompt, or add [projects.\"<repo>\"] trust_level = \"trusted\" to \
                 ~/.codex/config.toml (`codex mcp list` then shows cds)"
            }
            Agent::Gemini => {
                "Gemini CLI: trust the folder when asked (or add it to \
                 ~/.gemini/trustedFolders.json as TRUST_FOLDER); `gemini mcp list` then shows \
                 cds Connected"
            }
            Agent::Cursor => "Cursor: enable the cds server under Settings > MCP when asked",
            Agent::Vscode => "VS Code: start the cds server from .vscode/mcp.json when asked",
            Agent::Opencode => "OpenCode: `opencode mcp list` shows the cds server",
        }
    }

    /// The kit's files.
    pub fn files(self) -> Vec<KitFile> {
        match self {
            Agent::Claude => vec![
                KitFile::json(
                    ".mcp.json",
                    vec![Op::set(
                        &["mcpServers", "cds"],
                        json!({"type": "stdio", "command": "cds-mcp", "args": [], "env": {}}),
                    )],
                ),
                KitFile::json(
                    ".claude/settings.json",
                    vec![
                        Op::add(
                            &["permissions", "allow"],
                            SHELL_PROGRAMS[..9]
                                .iter()
                                .map(|p| json!(format!("Bash({p}:*)")))
                                .chain([json!("mcp__cds")])
                                .collect(),
                        ),
                        Op::add(
                            &["permissions", "deny"],
                            ["rm", "mv", "curl", "wget"]
                                .iter()
                                .map(|p| json!(format!("Bash({p}:*)")))
                                .chain([json!("Bash(*>*)")])
                                .collect(),
                        ),
                        Op::add(&["enabledMcpjsonServers"], vec![json!("cds")]),
                        Op::add(
                            &["hooks", "PreToolUse"],
                            vec![json!({
                                "matcher": "Bash",
                                "hooks": [{
                                    "type": "command",
                                    "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/cds-allow-list.py\"",
                                }],
                            })],
                        ),
                    ],
                ),
                KitFile::whole(".claude/hooks/cds-allow-list.py", HOOK.to_string(), true),
                KitFile::whole(".claude/agents/code-retriever.md", code_retriever(), false),
            ],
            Agent::Codex => vec![
                KitFile::toml(
                    ".codex/config.toml",
                    vec![
                        // No shell allow-list exists in Codex's config: the closest is a
                        // read-only sandbox, with a request to the user for anything more.
                        Op::set(&["sandbox_mode"], json!("read-only")),
                        Op::set(&["approval_policy"], json!("on-request")),
                        Op::set(
                            &["mcp_servers", "cds"],
                            json!({"command": "cds-mcp", "enabled_tools": CDS_TOOLS}),
                        ),
                    ],
                ),
                KitFile::section("AGENTS.md"),
            ],
            Agent::Gemini => vec![
                KitFile::json(
                    ".gemini/settings.json",
                    vec![Op::set(
                        &["mcpServers", "cds"],
                        json!({"command": "cds-mcp", "includeTools": CDS_TOOLS}),
                    )],
                ),
                KitFile::whole(".gemini/policies/cds.toml", gemini_policy(), false),
                KitFile::section("GEMINI.md"),
            ],
            Agent::Cursor => vec![
                // Cursor starts servers from wherever it likes; the index is named explicitly.
                KitFile::json(
                    ".cursor/mcp.json",
                    vec![Op::set(
                        &["mcpServers", "cds"],
                        json!({"command": "cds-mcp", "args": ["--index", "${workspaceFolder}/.cds"]}),
                    )],
                ),
                KitFile::whole(".cursor/rules/cds.mdc", cursor_rule(), false),
            ],
            Agent::Vscode => vec![
                KitFile::json(
                    ".vscode/mcp.json",
                    vec![Op::set(
                        &["servers", "cds"],
                        json!({
                            "type": "stdio",
                            "command": "cds-mcp",
                            "args": ["--index", "${workspaceFolder}/.cds"],
                        }),
                    )],
                ),
                KitFile::section(".github/copilot-instructions.md"),
            ],
            Agent::Opencode => vec![
                KitFile::json(
                    "opencode.json",
                    vec![
                        Op::set(&["$schema"], json!("https://opencode.ai/config.json")),
                        Op::set(
                            &["mcp", "cds"],
                            json!({"type": "local", "command": ["cds-mcp"], "enabled": true}),
                        ),
                        // The last matching rule wins: everything else is denied first.
                        Op::set(&["permission", "bash", "*"], json!("deny")),
                    ]
                    .into_iter()
                    // `rg` alone and `rg ARGS`: a `rg*` pattern would also let `rgrep` run.
                    .chain(SHELL_PROGRAMS.iter().flat_map(|p| {
                        [p.to_string(), format!("{p} *")]
                            .map(|pat| Op::set(&["permission", "bash", &pat], json!("allow")))
                    }))
                    .collect(),
                ),
                KitFile::section("AGENTS.md"),
            ],
        }
    }
}

/// The Claude Code sub-agent: the guide, framed as a read-only locator with an answer format.
fn code_retriever() -> String {
    let tools = CDS_TOOLS.map(|t| format!("mcp__cds__{t}")).join(", ");
    format!(
        "---
name: code-retriever
description: Finds where in this repository an issue, bug report or feature request has to be handled, and answers with the files, classes and functions (with line numbers) to change. Use it before editing code you have not located yet. It only reads; it never edits.
tools: Bash, {tools}
---

You locate code. Given an issue (a problem description, an error trace, code to reproduce a bug,
a feature request), you find the files, classes and functions that need to change, or that hold
what the change depends on, and you answer with their locations. You never edit anything.
Through Bash only cds pipelines run: a hook refuses any other command, output redirection
(`>`) and command substitution (`$(...)`, backticks).

{GUIDE}
## Answer

List the locations, most important first, about five files, in a fenced block: each file path,
then its `line:`, `class:` and `function:` lines (a method as `Class.method`):

```
path/to/file1.py
line: 10
class: MyClass1
function: my_function1

path/to/file2.py
line: 76
function: MyClass2.my_function2
```

Then one sentence per location on why it is there. Return only locations and reasons, no patch.
"
    )
}

/// Gemini CLI's workspace policy: the Claude hook's allow-list in its policy engine. Gemini
/// checks every command of a pipeline or list against the prefixes, refuses `$(...)`, and asks
/// before a command with `>`.
fn gemini_policy() -> String {
    let prefixes = SHELL_PROGRAMS.map(|p| format!("\"{p}\"")).join(", ");
    format!(
        "# cds kit for Gemini CLI (written by cds-kit): the shell runs only code-search pipelines.
# Each command of a pipeline or list must start with one of these programs; any other shell
# command is denied. cds's MCP tools only read the index, so they run without a prompt.

[[rule]]
toolName = \"run_shell_command\"
commandPrefix = [{prefixes}]
decision = \"allow\"
priority = 200

[[rule]]
toolName = \"run_shell_command\"
decision = \"deny\"
priority = 100
denyMessage = \"Blocked by the cds kit's policy (.gemini/policies/cds.toml): the shell runs only cds-build, cds-search, cds-trav, cds-get, cds-fmt, cds-loc, rg, jq and ast-grep, piped into head, tail, sort, uniq, wc, cut or tr. Rewrite the command as such a pipeline (for example: cds-search NAME | cds-trav -d up -r invoke | cds-get).\"

[[rule]]
mcpName = \"cds\"
toolName = \"*\"
decision = \"allow\"
priority = 200
"
    )
}

/// The Cursor project rule: the guide, applied to every request.
fn cursor_rule() -> String {
    format!(
        "---
description: How to find code in this repository with the cds index (search, graph walks, code retrieval)
globs:
alwaysApply: true
---

{GUIDE}"
    )
}

/// The guide section of a Markdown file, markers included.
pub fn section() -> String {
    format!("{BEGIN}\n{GUIDE}{END}\n")
}

/// One change to a config file.
#[derive(Clone, Debug)]
pub enum Op {
    /// Sets the key at the path when it is missing (creating the objects or tables above it).
    Set(Vec<String>, Value),
    /// Appends each item missing from the list at the path (creating the list if needed).
    Add(Vec<String>, Vec<Value>),
}

impl Op {
    fn set(path: &[&str], value: Value) -> Op {
        Op::Set(path.iter().map(|s| s.to_string()).collect(), value)
    }
    fn add(path: &[&str], items: Vec<Value>) -> Op {
        Op::Add(path.iter().map(|s| s.to_string()).collect(), items)
    }
}

/// What goes into a file.
#[derive(Clone, Debug)]
pub enum Content {
    /// A JSON config (comments and trailing commas accepted in the user's copy).
    Json(Vec<Op>),
    /// A TOML config.
    Toml(Vec<Op>),
    /// The guide section of a Markdown file.
    Section,
    /// A file that is cds's own.
    Whole {
        /// Its text.
        text: String,
        /// Made executable.
        executable: bool,
    },
}

/// One file of a kit.
#[derive(Clone, Debug)]
pub struct KitFile {
    /// Its path in the repository.
    pub path: &'static str,
    /// What it holds.
    pub content: Content,
}

impl KitFile {
    fn json(path: &'static str, ops: Vec<Op>) -> KitFile {
        KitFile { path, content: Content::Json(ops) }
    }
    fn toml(path: &'static str, ops: Vec<Op>) -> KitFile {
        KitFile { path, content: Content::Toml(ops) }
    }
    fn section(path: &'static str) -> KitFile {
        KitFile { path, content: Content::Section }
    }
    fn whole(path: &'static str, text: String, executable: bool) -> KitFile {
        KitFile { path, content: Content::Whole { text, executable } }
    }

    /// The file as written into a repository that has none.
    pub fn fresh(&self) -> String {
        match &self.content {
            Content::Json(ops) => {
                let mut root = Value::Object(serde_json::Map::new());
                for op in ops {
                    let (path, value) = match op {
                        Op::Set(path, v) => (path, v.clone()),
                        Op::Add(path, items) => (path, Value::Array(items.clone())),
                    };
                    let mut at = &mut root;
                    for key in &path[..path.len() - 1] {
                        at = at
                            .as_object_mut()
                            .expect("kit paths go through objects")
                            .entry(key.clone())
                            .or_insert_with(|| Value::Object(serde_json::Map::new()));
                    }
                    at.as_object_mut()
                        .expect("kit paths go through objects")
                        .insert(path[path.len() - 1].clone(), value);
                }
                serde_json::to_string_pretty(&root).expect("a Value serializes") + "\n"
            }
            Content::Toml(ops) => {
                let body = toml::apply("", ops, &mut Change::default());
                CODEX_HEADER.to_string() + &body.expect("an empty document parses")
            }
            Content::Section => section(),
            Content::Whole { text, .. } => text.clone(),
        }
    }

    fn executable(&self) -> bool {
        matches!(self.content, Content::Whole { executable: true, .. })
    }
}

/// What merging added to a config, and what it had to leave as the user has it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Change {
    /// Keys added (`mcpServers.cds`) and lists extended (`permissions.allow (+3)`).
    pub added: Vec<String>,
    /// Keys in the way, left as they are (`mcpServers (not an object)`).
    pub kept: Vec<String>,
}

impl Change {
    /// Notes a key left as the user has it (once, however many of cds's keys it blocked).
    pub fn keep(&mut self, what: String) {
        if !self.kept.contains(&what) {
            self.kept.push(what);
        }
    }
}

/// What cds-kit does (or would do) to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The file did not exist.
    Created,
    /// Keys or items were added to the user's config.
    Merged(Change),
    /// Nothing to do (the change lists what was in the way, if anything).
    Unchanged(Change),
    /// The guide section was appended to the user's file.
    Appended,
    /// The guide section was replaced with the current one.
    Updated,
    /// The user's copy of a cds file differs: left alone.
    Kept,
}

/// One file's plan: what happens and the text to write.
#[derive(Debug)]
pub struct Planned {
    /// The path in the repository.
    pub rel: &'static str,
    /// What happens.
    pub outcome: Outcome,
    /// The new text, when the file is written.
    pub text: Option<String>,
    /// Made executable when created.
    pub executable: bool,
}

impl Planned {
    /// The line cds-kit prints for this file.
    pub fn line(&self, dry_run: bool) -> String {
        // (what a dry run says, what a run says)
        let ((would, did), rest) = match &self.outcome {
            Outcome::Created => (("create", "created"), String::new()),
            Outcome::Merged(c) => (("merge", "merged"), describe(c)),
            Outcome::Unchanged(c) => (("", "unchanged"), describe(c)),
            Outcome::Appended => (("append", "appended"), ": added the cds section".to_string()),
            Outcome::Updated => (("update", "updated"), ": replaced the cds section".to_string()),
            Outcome::Kept => (
                ("", "kept"),
                ": differs from cds-kit's copy; delete it and run cds-kit again to replace it"
                    .to_string(),
            ),
        };
        let verb = if dry_run && !would.is_empty() { format!("would {would}") } else { did.into() };
        format!("{verb:<13} {}{rest}", self.rel)
    }
}

fn describe(c: &Change) -> String {
    let mut parts = Vec::new();
    if !c.added.is_empty() {
        parts.push(format!("added {}", c.added.join(", ")));
    }
    if !c.kept.is_empty() {
        parts.push(format!("left as you have it: {}", c.kept.join(", ")));
    }
    if parts.is_empty() { String::new() } else { format!(": {}", parts.join("; ")) }
}

/// Works out what setting `agents` up in `repo` does to each file, reading but writing nothing.
/// Every problem is reported (one line each) before anything is written, so a malformed config
/// leaves the whole repository untouched.
pub fn plan(repo: &Path, agents: &[Agent]) -> Result<Vec<Planned>, Vec<String>> {
    let mut planned: Vec<Planned> = Vec::new();
    let mut errors = Vec::new();
    let mut seen = Vec::new();
    for agent in agents {
        for file in agent.files() {
            // Codex and OpenCode share AGENTS.md: one section serves both.
            if seen.contains(&file.path) {
                continue;
            }
            seen.push(file.path);
            let path = repo.join(file.path);
            // Messages name files as the user sees them from where they ran cds-kit.
            let shown = if repo == Path::new(".") { Path::new(file.path) } else { &path };
            let old = match std::fs::read_to_string(&path) {
                Ok(text) => Some(text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    errors.push(crate::Error::io("cannot read", shown, e).to_string());
                    continue;
                }
            };
            match plan_file(&file, old.as_deref()) {
                Ok((outcome, text)) => planned.push(Planned {
                    rel: file.path,
                    outcome,
                    text,
                    executable: file.executable(),
                }),
                Err(why) => errors.push(format!("{}: {why}", shown.display())),
            }
        }
    }
    if errors.is_empty() { Ok(planned) } else { Err(errors) }
}

/// The outcome for one file given its current text, and the text to write if any.
fn plan_file(file: &KitFile, old: Option<&str>) -> Result<(Outcome, Option<String>), String> {
    let Some(old) = old else {
        return Ok((Outcome::Created, Some(file.fresh())));
    };
    let config = |new: String, change: Change| {
        if new == old {
            (Outcome::Unchanged(change), None)
        } else {
            (Outcome::Merged(change), Some(new))
        }
    };
    match &file.content {
        Content::Json(ops) => {
            let mut change = Change::default();
            if old.trim().is_empty() {
                let new = file.fresh();
                change.added = ops.iter().map(op_path).collect();
                return Ok(config(new, change));
            }
            let new = apply_json(old, ops, &mut change)?;
            Ok(config(new, change))
        }
        Content::Toml(ops) => {
            let mut change = Change::default();
            let new = toml::apply(old, ops, &mut change).map_err(|e| {
                format!("not valid TOML ({e}): fix it or move it aside, then run cds-kit again")
            })?;
            Ok(config(new, change))
        }
        Content::Section => splice_section(old, &section()),
        Content::Whole { text, .. } => Ok(if old == text {
            (Outcome::Unchanged(Change::default()), None)
        } else {
            (Outcome::Kept, None)
        }),
    }
}

fn op_path(op: &Op) -> String {
    match op {
        Op::Set(path, _) | Op::Add(path, _) => path.join("."),
    }
}

/// Where a path leads in a JSON document.
enum Walk<'a> {
    /// To this node.
    Found(&'a json::Node),
    /// To a missing key: the object that lacks it and the key's index in the path.
    Missing(&'a json::Node, usize),
    /// Into something that is not an object, at this index of the path.
    Blocked(usize),
}

fn walk<'a>(root: &'a json::Node, path: &[String]) -> Walk<'a> {
    let mut at = root;
    for (i, key) in path.iter().enumerate() {
        if !matches!(at.kind, json::Kind::Object(_)) {
            return Walk::Blocked(i - 1);
        }
        match at.get(key) {
            Some(next) => at = next,
            None => return Walk::Missing(at, i),
        }
    }
    Walk::Found(at)
}

/// `value` under the keys `path` (`{"a": {"b": value}}` for `["a", "b"]`).
fn nest(path: &[String], value: Value) -> Value {
    path.iter().rev().fold(value, |v, key| json!({ key: v }))
}

/// Applies `ops` to the JSON text `old`, splicing new members and items into it.
fn apply_json(old: &str, ops: &[Op], change: &mut Change) -> Result<String, String> {
    let parse = |text: &str| {
        json::parse(text).map_err(|e| {
            format!(
                "not valid JSON (line {}, column {}: {}): fix it or move it aside, then run \
                 cds-kit again",
                e.line, e.column, e.what
            )
        })
    };
    let mut text = old.to_string();
    if !matches!(parse(&text)?.kind, json::Kind::Object(_)) {
        return Err("the top level is not a JSON object: fix it or move it aside, then run \
                    cds-kit again"
            .to_string());
    }
    for op in ops {
        let (path, items) = match op {
            Op::Set(path, value) => (path, vec![value.clone()]),
            Op::Add(path, items) => (path, items.clone()),
        };
        let mut appended = 0;
        for item in &items {
            let root = parse(&text)?;
            let new = match walk(&root, path) {
                Walk::Found(node) => match (&node.kind, op) {
                    (_, Op::Set(..)) => break,
                    (json::Kind::Array(existing), Op::Add(..)) => {
                        if existing.iter().any(|n| n.value() == *item) {
                            continue;
                        }
                        appended += 1;
                        json::insert_item(&text, node, item)
                    }
                    _ => {
                        change.keep(format!("{} (not a list)", path.join(".")));
                        break;
                    }
                },
                Walk::Missing(parent, i) => {
                    let value = match op {
                        Op::Set(..) => item.clone(),
                        Op::Add(..) => Value::Array(items.clone()),
                    };
                    change.added.push(path.join("."));
                    text =
                        json::insert_member(&text, parent, &path[i], &nest(&path[i + 1..], value));
                    break;
                }
                Walk::Blocked(i) => {
                    change.keep(format!("{} (not an object)", path[..=i].join(".")));
                    break;
                }
            };
            text = new;
        }
        if appended > 0 {
            change.added.push(format!("{} (+{appended})", path.join(".")));
        }
    }
    Ok(text)
}

/// The user's Markdown file with the cds section appended, or replaced where it is.
fn splice_section(old: &str, section: &str) -> Result<(Outcome, Option<String>), String> {
    let Some(begin) = find_line(old, BEGIN_PREFIX, 0) else {
        let mut new = old.to_string();
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        if !new.is_empty() {
            new.push('\n');
        }
        new.push_str(section);
        return Ok((Outcome::Appended, Some(new)));
    };
    let Some(end) = find_line(old, END, begin) else {
        return Err(format!(
            "has a `{BEGIN_PREFIX}` line but no `{END}` after it: remove the partial section \
             (or add the end marker), then run cds-kit again"
        ));
    };
    let end_of_line = old[end..].find('\n').map_or(old.len(), |n| end + n + 1);
    if &old[begin..end_of_line] == section {
        return Ok((Outcome::Unchanged(Change::default()), None));
    }
    let new = format!("{}{section}{}", &old[..begin], &old[end_of_line..]);
    Ok((Outcome::Updated, Some(new)))
}

/// The offset of the first line at or after `from` that starts with `prefix`.
fn find_line(text: &str, prefix: &str, from: usize) -> Option<usize> {
    let mut at = from;
    for line in text[from..].split_inclusive('\n') {
        if line.starts_with(prefix) {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// Writes the planned files into `repo`: new text goes to a temporary file that replaces the
/// old one, which keeps its permissions.
pub fn write(repo: &Path, planned: &[Planned]) -> crate::Result<()> {
    for p in planned {
        let Some(text) = &p.text else { continue };
        let path = repo.join(p.rel);
        let dir = path.parent().expect("kit paths have a parent");
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::io("cannot create", dir, e))?;
        let tmp = dir.join(format!(
            ".{}.cds-kit-{}",
            path.file_name().unwrap().to_string_lossy(),
            std::process::id()
        ));
        std::fs::write(&tmp, text).map_err(|e| crate::Error::io("cannot write", &path, e))?;
        let perms = match std::fs::metadata(&path) {
            Ok(m) => Some(m.permissions()),
            Err(_) if p.executable => Some(executable_permissions()),
            Err(_) => None,
        };
        if let Some(perms) = perms {
            std::fs::set_permissions(&tmp, perms)
                .map_err(|e| crate::Error::io("cannot set permissions of", &path, e))?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            crate::Error::io("cannot write", &path, e)
        })?;
    }
    Ok(())
}

#[cfg(unix)]
fn executable_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o755)
}

#[cfg(not(unix))]
fn executable_permissions() -> std::fs::Permissions {
    std::fs::metadata(".").expect("the current directory").permissions()
}

/// Writes every kit, as it is for a repository with none of its files, into `dir/<kit>/`
/// (`make kits` regenerates `examples/agents/` this way). Returns the files written.
pub fn write_examples(dir: &Path) -> crate::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for agent in Agent::ALL {
        let root = dir.join(agent.example_dir());
        let planned: Vec<Planned> = agent
            .files()
            .into_iter()
            .map(|f| Planned {
                rel: f.path,
                outcome: Outcome::Created,
                executable: f.executable(),
                text: Some(f.fresh()),
            })
            .collect();
        // Written afresh: stale files are replaced whatever they hold.
        for p in &planned {
            let path = root.join(p.rel);
            if std::fs::read_to_string(&path).ok().as_deref() != p.text.as_deref() {
                let _ = std::fs::remove_file(&path);
                written.push(path);
            }
        }
        write(&root, &planned)?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_parse_by_name_and_kit_directory() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.name()), Some(a));
            assert_eq!(Agent::parse(a.example_dir()), Some(a));
        }
        assert_eq!(Agent::parse("emacs"), None);
    }

    #[test]
    fn fresh_configs_are_unchanged_by_a_second_run() {
        for agent in Agent::ALL {
            for file in agent.files() {
                let fresh = file.fresh();
                let (outcome, text) = plan_file(&file, Some(&fresh)).unwrap();
                assert_eq!(outcome, Outcome::Unchanged(Change::default()), "{}", file.path);
                assert_eq!(text, None);
            }
        }
    }

    #[test]
    fn json_merge_adds_only_what_is_missing() {
        let file = &Agent::Claude.files()[1];
        let old = "{\n  // mine\n  \"permissions\": {\"allow\": [\"Bash(rg:*)\", \"Bash(make:*)\"]},\n  \"model\": \"opus\"\n}\n";
        let (outcome, text) = plan_file(file, Some(old)).unwrap();
        let Outcome::Merged(change) = outcome else { panic!("{outcome:?}") };
        assert_eq!(
            change.added,
            [
                "permissions.allow (+9)",
                "permissions.deny",
                "enabledMcpjsonServers",
                "hooks.PreToolUse"
            ]
        );
        let text = text.unwrap();
        assert!(text.starts_with("{\n  // mine\n  \"permissions\": {\"allow\": [\"Bash(rg:*)\", \"Bash(make:*)\", \"Bash(cds-build:*)\""), "{text}");
        let value = json::parse(&text).unwrap().value();
        assert_eq!(value["model"], "opus");
        assert_eq!(value["permissions"]["allow"].as_array().unwrap().len(), 11);
        assert_eq!(plan_file(file, Some(&text)).unwrap().0, Outcome::Unchanged(Change::default()));
    }

    #[test]
    fn json_merge_keeps_what_is_in_the_way() {
        let file = &Agent::Gemini.files()[0];
        let old = "{\"mcpServers\": []}";
        let (outcome, text) = plan_file(file, Some(old)).unwrap();
        assert_eq!(
            outcome,
            Outcome::Unchanged(Change {
                added: vec![],
                kept: vec!["mcpServers (not an object)".into()],
            })
        );
        assert_eq!(text, None);
        let settings = &Agent::Claude.files()[1];
        let (outcome, _) =
            plan_file(settings, Some("{\"permissions\": {\"allow\": \"*\"}}")).unwrap();
        let Outcome::Merged(change) = outcome else { panic!("{outcome:?}") };
        assert_eq!(change.kept, ["permissions.allow (not a list)"]);
        let err = plan_file(file, Some("{\"mcpServers\": {,}}")).unwrap_err();
        assert!(err.starts_with("not valid JSON (line 1, column 17: "), "{err}");
        assert!(plan_file(file, Some("[1]")).unwrap_err().contains("not a JSON object"));
    }

    #[test]
    fn sections_are_appended_replaced_and_checked() {
        let s = section();
        let (o, t) = splice_section("# Notes\nmine", &s).unwrap();
        assert_eq!(o, Outcome::Appended);
        let t = t.unwrap();
        assert_eq!(t, format!("# Notes\nmine\n\n{s}"));
        assert_eq!(splice_section(&t, &s).unwrap().0, Outcome::Unchanged(Change::default()));
        let old = format!("# Notes\n{BEGIN}\nold text\n{END}\nafter\n");
        let (o, t) = splice_section(&old, &s).unwrap();
        assert_eq!(o, Outcome::Updated);
        assert_eq!(t.unwrap(), format!("# Notes\n{s}after\n"));
        let err = splice_section(&format!("{BEGIN}\nhalf"), &s).unwrap_err();
        assert!(err.contains("no `<!-- cds:end -->`"), "{err}");
    }

    #[test]
    fn lines_say_what_happened() {
        let p = |outcome| Planned { rel: "a.json", outcome, text: None, executable: false };
        assert_eq!(p(Outcome::Created).line(false), "created       a.json");
        assert_eq!(p(Outcome::Created).line(true), "would create  a.json");
        let c = Change { added: vec!["x.y".into()], kept: vec!["z (not an object)".into()] };
        assert_eq!(
            p(Outcome::Merged(c)).line(false),
            "merged        a.json: added x.y; left as you have it: z (not an object)"
        );
        assert_eq!(p(Outcome::Appended).line(true), "would append  a.json: added the cds section");
    }
}
