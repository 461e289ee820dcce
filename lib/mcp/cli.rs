//! `cds-mcp`'s command line: its flag table and the stdio loop.

use std::ffi::OsStr;

use crate::cli::flags::value_parse;
use crate::cli::{Args, Common, Flag, Status, Tool, common};

/// Parsed flags.
#[derive(Debug, Default)]
pub struct McpArgs {
    common: Common,
    max_chars: Option<usize>,
}

impl Args for McpArgs {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

fn max_chars(a: &mut McpArgs, v: Option<&OsStr>) -> Result<(), String> {
    let n: usize = value_parse(v)?;
    if n < 1000 {
        return Err("expected at least 1000 (the notes on cut output need room)".to_string());
    }
    a.max_chars = Some(n);
    Ok(())
}

/// The tool's table.
pub static TOOL: Tool<McpArgs> = Tool {
    name: "cds-mcp",
    about: "Serve a cds index to MCP clients (Claude Code, IDEs, agents) over stdio",
    usage: &["cds-mcp [OPTIONS]"],
    description: "cds-mcp is a Model Context Protocol server. It serves one index (--index DIR, \
else CDS_INDEX, else the .cds found from the current directory upwards) over stdio: one JSON-RPC \
2.0 message per line on stdin and stdout. An MCP client starts it and talks to it; it ends when \
stdin is closed. Nothing but protocol messages is written to stdout.

Tools: cds_search (cds-search: names, words or a whole issue to ranked entities), cds_traverse \
(cds-trav: callers, callees, imports, subclasses, containment; or LocAgent's tree), \
cds_retrieve (cds-get: code by entity ID or line range), cds_locate (cds-loc: the files and \
functions an issue is about). Their input schemas mirror the tools' flags; each result has the \
text the tool prints, for the model, and the records of its --json output as structured content. \
LocAgent's own tools are served too, with LocAgent's names, parameter schemas, descriptions and \
output text: search_code_snippets, get_entity_contents and explore_tree_structure, so prompts \
and models made for LocAgent work unchanged (on an index built with cds-build --compat locagent \
the tree and every answer that does not come from LocAgent's BM25 match LocAgent's byte for \
byte).

Protocol: initialize negotiates the version (2024-11-05, 2025-03-26, 2025-06-18 or 2025-11-25: \
the client's if it is one of them, else the latest), then tools/list, tools/call and ping; \
notifications are accepted. A line that is not JSON gets a parse error (-32700), a message that \
is not a request an invalid-request error (-32600), an unknown method -32601, an unknown tool \
-32602. Bad tool arguments and unknown IDs are tool errors (isError: true) that say what to fix, \
and the server goes on serving.

Safety: the tools read the index and nothing else. An ID is looked up in the index (exact, or \
the loose spellings cds-get accepts) and code comes from the index's stored copy, so no path \
(../.., an absolute path, a symlink) can reach a file outside the indexed repository. Every \
result is cut at --max-chars characters, with a note saying how to narrow the call.",
    positional: None,
    flags: &[
        Flag::new("max-chars", "Cut each tool result at N characters (default 40000)", max_chars)
            .value("N")
            .long_doc(
                "Cut each tool result's text at N characters (at a line boundary, with a note \
saying how to narrow the call), and its structured content to about as much JSON. The default, \
40000, is about 10,000 tokens.",
            ),
        common::index(),
        common::quiet(),
    ],
    examples: &[
        ("Serve the index of the current repository", "cds-mcp"),
        ("Register it with Claude Code", "claude mcp add cds -- cds-mcp --index \"$PWD/.cds\""),
        (
            "Talk to it by hand",
            "printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}' | cds-mcp",
        ),
    ],
    see_also: &[
        "cds(7)",
        "cds-search(1)",
        "cds-trav(1)",
        "cds-get(1)",
        "cds-loc(1)",
        "cds-build(1)",
    ],
};

/// Runs `cds-mcp` until stdin ends.
pub fn run(args: McpArgs) -> crate::Result<Status> {
    let ix = args.common.open_index()?;
    let opts =
        super::Options { max_chars: args.max_chars.unwrap_or(super::tools::DEFAULT_MAX_CHARS) };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    super::serve(&ix, opts, stdin.lock(), stdout.lock())?;
    Ok(Status::Found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sound() {
        assert_eq!(crate::cli::flags::check(&TOOL), Vec::<String>::new());
    }
}
