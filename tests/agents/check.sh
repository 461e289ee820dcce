#!/bin/sh
# make test-agents: the agent kits checked with the real clients.
#
# Installs Claude Code, Gemini CLI, Codex CLI and OpenCode from npm into target/agents/npm,
# sets a copy of examples/demo-repo up with `cds-kit all`, builds its index, trusts the folder
# the way a user would (in a throwaway HOME under target/agents, never the real one), and asks
# each client's own command whether the `cds` server is registered and, where the client
# starts it to check (Claude Code, Gemini CLI, OpenCode), connected. Codex only lists it.
# It also runs the kit's Gemini policy through Gemini's own policy engine, and reads back the
# permissions OpenCode resolved. No API key and no network but the npm registry are needed.
#
# Usage: tests/agents/check.sh  (make test-agents builds cds first). Pin clients with
# CDS_AGENT_PACKAGES="@openai/codex@0.169.0 ...".
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd -P)
work="$root/target/agents"
bin="$root/target/release"
packages=${CDS_AGENT_PACKAGES:-"@anthropic-ai/claude-code @google/gemini-cli @openai/codex opencode-ai"}

for tool in cds-kit cds-build cds-mcp; do
    [ -x "$bin/$tool" ] || { echo "check.sh: $bin/$tool is missing: run make build" >&2; exit 2; }
done
for tool in npm node git jq; do
    command -v $tool >/dev/null || { echo "check.sh: $tool is needed (npm and node for the clients)" >&2; exit 2; }
done

echo "== installing $packages (npm, into target/agents/npm)"
mkdir -p "$work/npm"
# shellcheck disable=SC2086
npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error $packages >"$work/npm.log" 2>&1 \
    || { cat "$work/npm.log" >&2; exit 2; }

# The clients see a fresh HOME: no real config is read or written.
home="$work/home"
repo="$work/repo"
rm -rf "$home" "$repo"
mkdir -p "$home" "$repo"
export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    XDG_STATE_HOME="$home/.local/state" XDG_CACHE_HOME="$home/.cache"
unset CODEX_HOME GEMINI_CLI_TRUST_WORKSPACE CLAUDE_CONFIG_DIR 2>/dev/null || true
export PATH="$work/npm/node_modules/.bin:$bin:$PATH"
export NO_COLOR=1

echo "== a repository set up with cds-kit all"
cp -R "$root/examples/demo-repo/." "$repo/"
rm -rf "$repo/.cds"
git -C "$repo" init -q
(cd "$repo" && cds-kit all)
cds-build "$repo"

echo "== before the folder is trusted (for information: the project's servers are not used yet)"
for cmd in "claude mcp list" "gemini mcp list" "codex mcp list"; do
    echo "\$ $cmd"
    # shellcheck disable=SC2086
    (cd "$repo" && timeout 180 $cmd 2>&1 | grep -v WARNING | sed 's/^/    /') || true
done

echo "== trusting the folder, as a user would"
# Claude Code: what accepting its trust dialog records (project .mcp.json servers and
# .claude/settings.json load only in a trusted folder; the kit's settings then approve cds).
printf '{"projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' "$repo" >"$home/.claude.json"
# Gemini CLI: what "Trust folder" records.
mkdir -p "$home/.gemini"
printf '{"%s": "TRUST_FOLDER"}\n' "$repo" >"$home/.gemini/trustedFolders.json"
# Codex: project .codex/config.toml is read only for a trusted project.
mkdir -p "$home/.codex"
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$repo" >"$home/.codex/config.toml"

failed=0
summary=""
# check NAME PATTERN COMMAND...: runs the client's command in the repository and looks for a
# line matching PATTERN (an extended regular expression).
check() {
    name=$1
    pattern=$2
    shift 2
    # Without colour codes (OpenCode writes some even with NO_COLOR).
    out=$(cd "$repo" && timeout 180 "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g') || true
    echo "\$ $*"
    echo "$out" | sed 's/^/    /'
    line=$(echo "$out" | grep -E "$pattern" | head -1 || true)
    if [ -n "$line" ]; then
        summary="$summary
ok    $name: $line"
    else
        summary="$summary
FAIL  $name: no line matching /$pattern/"
        failed=1
    fi
}

version() {
    v=$(timeout 60 "$@" 2>/dev/null | grep -v WARNING | head -1) || true
    summary="$summary
      $1 version: $v"
}

echo "== the clients' own checks"
version claude --version
check "claude mcp list" '^cds: cds-mcp .*Connected' claude mcp list
version gemini --version
check "gemini mcp list" 'cds: cds-mcp .*Connected' gemini mcp list
version codex --version
check "codex mcp list" '^cds +cds-mcp .*enabled' codex mcp list
check "codex mcp get cds" '"enabled_tools"' codex mcp get cds --json
version opencode --version
check "opencode mcp list" 'cds.*connected' opencode mcp list
check "opencode permission" '^deny$' sh -c 'opencode debug config | jq -r ".permission.bash[\"*\"]"'

echo "== the Gemini kit's policy, through Gemini's own policy engine"
engine=$(grep -l 'loadPoliciesFromToml,' "$work"/npm/node_modules/@google/gemini-cli/bundle/*.js 2>/dev/null | head -1 || true)
if [ -n "$engine" ]; then
    check "gemini policy" '^policy ok$' node "$root/tests/agents/gemini-policy.mjs" "$engine" "$repo/.gemini/policies"
else
    summary="$summary
skip  gemini policy: this Gemini CLI does not export its policy engine"
fi

echo "== summary$summary"
exit $failed
