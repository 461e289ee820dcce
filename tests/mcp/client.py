"""Drives cds-mcp with the official MCP Python SDK, as a real client would.

    python tests/mcp/client.py CDS_MCP INDEX_DIR TOOLS_JSONL

INDEX_DIR is an index of tests/fixtures/locagent/repo built with `cds-build --compat locagent`,
whose repository also holds `evil.py` and `evildir/`, symlinks to a file and a directory outside
it holding the marker `cds-outside`. TOOLS_JSONL is LocAgent's recorded outputs on the fixture.
Exits 0 when every check passes; otherwise prints each failure and exits 1. Run by tests/mcp.rs.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

FAILURES = []
OUTSIDE = "cds-outside"


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL: {what}", flush=True)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def session_checks(cds_mcp, index, records, mode):
    params = StdioServerParameters(command=cds_mcp, args=["--index", index])
    async with Client(params, mode=mode) as c:
        check(
            c.protocol_version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
            f"{mode}: negotiated version {c.protocol_version}",
        )
        check(c.server_info is not None and c.server_info.name == "cds-mcp", f"{mode}: server info")

        tools = {t.name: t for t in (await c.list_tools()).tools}
        want = {
            "cds_search", "cds_traverse", "cds_retrieve", "cds_locate",
            "search_code_snippets", "get_entity_contents", "explore_tree_structure",
        }
        check(set(tools) == want, f"{mode}: tools {sorted(tools)}")
        if set(tools) != want:
            return
        # LocAgent's parameter schemas.
        scs = tools["search_code_snippets"].input_schema
        check(set(scs["properties"]) == {"search_terms", "line_nums", "file_path_or_pattern"}, "search_code_snippets params")
        check(scs["properties"]["file_path_or_pattern"]["default"] == "**/*.py", "search_code_snippets default pattern")
        check(scs.get("required") == [], "search_code_snippets required")
        check(tools["get_entity_contents"].input_schema["required"] == ["entity_names"], "get_entity_contents required")
        ets = tools["explore_tree_structure"].input_schema
        check(ets["required"] == ["start_entities"], "explore_tree_structure required")
        check(ets["properties"]["direction"]["enum"] == ["upstream", "downstream", "both"], "direction enum")
        check(ets["properties"]["traversal_depth"]["default"] == 2, "traversal_depth default")
        check("Code Graph Definition" in tools["explore_tree_structure"].description, "tree description")
        # The cds tools' schemas mirror the CLI flags.
        check(set(tools["cds_search"].input_schema["properties"]) == {"query", "type", "glob", "tests", "limit", "view"}, "cds_search params")
        check(set(tools["cds_traverse"].input_schema["properties"]) >= {"ids", "hops", "direction", "type", "rel", "limit", "tree"}, "cds_traverse params")

        # Every tool, on the fixture.
        r = await c.call_tool("cds_search", {"query": "Engine", "limit": 3})
        check(not r.is_error, "cds_search ok")
        check(r.structured_content["hits"][0]["id"] == "pkg/core.py:Engine", f"cds_search first hit {r.structured_content}")
        check(text_of(r).startswith("pkg/core.py:Engine\tclass\t"), "cds_search text")

        r = await c.call_tool("cds_traverse", {"ids": ["pkg/util.py:helper"], "direction": "up", "rel": ["invoke"]})
        check(not r.is_error, f"cds_traverse ok: {text_of(r)}")
        ids = [e["id"] for e in r.structured_content["entities"]]
        check(ids[0] == "pkg/util.py:helper" and "pkg/util.py:run" in ids, f"cds_traverse callers {ids}")
        check("invokes=pkg/util.py:helper" in text_of(r), "cds_traverse relation text")

        r = await c.call_tool("cds_traverse", {"ids": "pkg/core.py:Engine", "tree": True, "hops": 1})
        check(not r.is_error and text_of(r).startswith("pkg/core.py:Engine\n"), f"cds_traverse tree: {text_of(r)}")

        r = await c.call_tool("cds_retrieve", {"ids": ["pkg/util.py:get", "pkg/core.py:30-31"]})
        check(not r.is_error, "cds_retrieve ok")
        check("7 | def get():" in text_of(r), f"cds_retrieve code: {text_of(r)}")
        check(r.structured_content["entities"][0]["code"].startswith("def get():"), "cds_retrieve structured code")
        check(len(r.structured_content["entities"]) == 2, "cds_retrieve line range")

        r = await c.call_tool("cds_locate", {"issue": "Engine.start calls util.get and returns the wrong value", "limit": 3})
        check(not r.is_error and r.structured_content["found_files"], f"cds_locate: {text_of(r)}")
        check("# Files" in text_of(r), "cds_locate text")

        # LocAgent's tools answer exactly as LocAgent did.
        for i in (17, 27, 34, 37, 41, 43, 46, 52, 57, 58, 61):
            rec = records[i]
            r = await c.call_tool(rec["tool"], rec["args"])
            check(not r.is_error and text_of(r) == rec["output"], f"{mode}: LocAgent record {i} {rec['tool']} {rec['args']}:\n{text_of(r)}")
        r = await c.call_tool("explore_tree_structure", {"start_entities": ["pkg/core.py"], "direction": "sideways"})
        check(r.is_error and "Invalid value for `direction`" in text_of(r), f"tree bad direction: {text_of(r)}")
        r = await c.call_tool("explore_tree_structure", {"start_entities": ["pkg"], "dependency_type_filter": ["calls"]})
        check(r.is_error and "Invalid edge types ['calls']" in text_of(r), f"tree bad relation: {text_of(r)}")
        r = await c.call_tool("get_entity_contents", {"entity_names": ["pkg/util.py:get"]})
        check(r.structured_content == {"entities": ["pkg/util.py:get"]}, f"structured LocAgent: {r.structured_content}")

        # Bad parameters are tool errors, and the server goes on.
        for name, args, says in [
            ("cds_search", {}, "'query' is required"),
            ("cds_search", {"query": 42}, "must be a string"),
            ("cds_search", {"query": "x", "limit": 0}, "between 1 and 200"),
            ("cds_search", {"query": "x", "limit": "ten"}, "must be an integer"),
            ("cds_search", {"query": "x", "type": ["method"]}, "expected one of"),
            ("cds_search", {"query": "x", "frobnicate": True}, "unknown argument 'frobnicate'"),
            ("cds_traverse", {"ids": []}, "is empty"),
            ("cds_traverse", {"ids": ["pkg/util.py:helper"], "hops": 99}, "between -1 and 20"),
            ("cds_traverse", {"ids": ["pkg/util.py:helper"], "direction": "sideways"}, "expected down, up or both"),
            ("cds_traverse", {"ids": ["pkg/util.py:helpr"]}, "did you mean"),
            ("cds_retrieve", {"ids": [{"id": 1}]}, "must hold strings"),
            ("cds_retrieve", {"ids": ["pkg/util.py:get"], "view": "all"}, "expected fold, preview or full"),
            ("cds_locate", {"issue": "   "}, "is empty"),
            ("search_code_snippets", {"search_terms": "Engine"}, "must be a list"),
            ("get_entity_contents", {}, "'entity_names' is required"),
            ("explore_tree_structure", {"start_entities": ["pkg"], "traversal_depth": "deep"}, "must be an integer"),
        ]:
            r = await c.call_tool(name, args)
            check(r.is_error and says in text_of(r), f"{name} {args}: expected a tool error with {says!r}, got {r.is_error} {text_of(r)!r}")
        try:
            await c.call_tool("no_such_tool", {})
            check(False, "unknown tool accepted")
        except MCPError as e:
            check(e.code == -32602 and "unknown tool" in str(e), f"unknown tool error: {e.code} {e}")

        # Nothing outside the repository: paths, absolute paths, symlinks out.
        for name, args in [
            ("cds_retrieve", {"ids": ["../../etc/passwd"]}),
            ("cds_retrieve", {"ids": ["/etc/passwd"]}),
            ("cds_retrieve", {"ids": ["evil.py", "evildir/secret.py", "evildir"]}),
            ("cds_traverse", {"ids": ["evil.py"]}),
            ("get_entity_contents", {"entity_names": ["evil.py", "../outside/secret.py", "/etc/passwd"]}),
            ("search_code_snippets", {"search_terms": ["evil.py", "secret", "SECRET_TOKEN", "../outside/secret.py"]}),
            ("search_code_snippets", {"line_nums": [1], "file_path_or_pattern": "evil.py"}),
            ("cds_search", {"query": "SECRET_TOKEN secret"}),
            ("explore_tree_structure", {"start_entities": ["/"], "traversal_depth": -1}),
        ]:
            r = await c.call_tool(name, args)
            t = text_of(r) + json.dumps(r.structured_content or {})
            check(OUTSIDE not in t and "root:" not in t, f"{name} {args} leaked: {t[:300]}")
        r = await c.call_tool("cds_retrieve", {"ids": ["../../etc/passwd"]})
        check(r.is_error, "a path outside the repository is a tool error")

        # Still serving.
        r = await c.call_tool("get_entity_contents", {"entity_names": ["pkg/util.py:get"]})
        check(not r.is_error and "def get():" in text_of(r), "serving after errors")
        if mode == "legacy":
            await c.send_ping()


async def budget_checks(cds_mcp, index):
    params = StdioServerParameters(command=cds_mcp, args=["--index", index, "--max-chars", "1000"])
    async with Client(params, mode="legacy") as c:
        r = await c.call_tool("explore_tree_structure", {"start_entities": ["/"], "traversal_depth": -1})
        t = text_of(r)
        check(not r.is_error and len(t) <= 1000, f"budget: {len(t)} characters")
        check("[cds-mcp: output cut at" in t and "narrow the call: lower traversal_depth" in t, f"budget note: {t[-200:]}")
        r = await c.call_tool("cds_retrieve", {"ids": ["pkg/core.py", "app/main.py", "pkg/util.py"]})
        check(len(text_of(r)) <= 1000 and len(json.dumps(r.structured_content)) <= 1100, "budget: retrieve")
        check(r.structured_content.get("truncated") is True, f"budget: structured truncated flag {r.structured_content}")


async def main():
    cds_mcp, index, tools_jsonl = sys.argv[1:4]
    records = [json.loads(l) for l in open(tools_jsonl, encoding="utf-8") if l.strip()]
    for mode in ("auto", "legacy"):
        await session_checks(cds_mcp, index, records, mode)
    await budget_checks(cds_mcp, index)
    if FAILURES:
        print(f"{len(FAILURES)} checks failed", flush=True)
        sys.exit(1)
    print("all MCP client checks passed", flush=True)


asyncio.run(main())
