#!/usr/bin/env python3
"""Claude Code PreToolUse hook: lets the Bash tool run only read-only code-search pipelines.

Claude Code sends the tool call as JSON on stdin ({"tool_name": "Bash", "tool_input":
{"command": "..."}, ...}). A command is allowed (exit 0, no output: the normal permission rules
then apply) when every simple command in it, split on `|`, `;`, `&&`, `||`, `&` and newlines,
starts with an allowed program:

* the cds tools: cds-build, cds-search, cds-trav, cds-get, cds-fmt, cds-loc;
* rg, jq, ast-grep (and its alias sg);
* text filters for pipelines: head, tail, sort, uniq, wc, cut, tr, column;

optionally after `NAME=value` environment assignments. Anything else is blocked with exit
status 2 and the reason on stderr, which Claude Code shows to the model: other programs (rm,
mv, curl, wget, sh, xargs, ...), output redirection (`>`, `>>`, `&>`, `>|`, even to
/dev/null), command and process substitution (`$(...)`, backticks, `<(...)`, `>(...)`),
subshells and groups (`( )`, `{ }`), and the options of allowed programs that write files or
run commands (`rg --pre`, `sort -o`, `ast-grep -U`, `uniq IN OUT`, ...).

Only Bash calls are judged; any other tool call gets no decision. A call that cannot be read
is blocked, so a broken input never lets a command through.
"""

import json
import shlex
import sys

ALLOWED = {
    "cds-build", "cds-search", "cds-trav", "cds-get", "cds-fmt", "cds-loc",
    "rg", "jq", "ast-grep", "sg",
    "head", "tail", "sort", "uniq", "wc", "cut", "tr", "column",
}

# Options that make an allowed program write files or run other programs.
FORBIDDEN_OPTIONS = {
    "rg": ("--pre", "--pre-glob"),
    "sort": ("-o", "--output", "--compress-program"),
    "ast-grep": ("-U", "--update-all", "-i", "--interactive"),
    "sg": ("-U", "--update-all", "-i", "--interactive"),
}

SEPARATORS = {"|", "||", "&", "&&", ";", ";;", "|&", "\n"}

HELP = (
    "This agent may only run cds-build, cds-search, cds-trav, cds-get, cds-fmt, cds-loc, rg, "
    "jq and ast-grep, piped into each other or into head, tail, sort, uniq, wc, cut, tr; "
    "without output redirection or command substitution. Rewrite the command as such a "
    "pipeline (for example: cds-search NAME | cds-trav -d up -r invoke | cds-get)."
)


def block(reason):
    sys.stderr.write(f"Blocked by the cds allow-list hook: {reason}. {HELP}\n")
    sys.exit(2)


def scan_quotes(command):
    """Rejects what runs code or writes files outside quotes, before tokenizing.

    Single quotes make everything literal; inside double quotes `$(` and backticks still run
    commands.
    """
    quote = None
    i = 0
    while i < len(command):
        c = command[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif c == "\\":
            i += 1  # an escaped character is literal
        elif quote == '"':
            if c == '"':
                quote = None
            elif c == "`" or command.startswith("$(", i):
                block("command substitution (`...` or $(...)) is not allowed")
        else:
            if c in "'\"":
                quote = c
            elif c == "`" or command.startswith("$(", i):
                block("command substitution (`...` or $(...)) is not allowed")
            elif command.startswith("<(", i) or command.startswith(">(", i):
                block("process substitution (<(...) or >(...)) is not allowed")
            elif c == ">":
                block("output redirection (>) is not allowed: commands may not write files")
            elif c in "(){}":
                block("subshells and command groups ( ) { } are not allowed")
        i += 1
    if quote is not None:
        block("the command has an unclosed quote")


def simple_commands(command):
    """Splits a command line into simple commands (lists of words)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>()\n")
    lexer.whitespace = " \t\r"  # newlines are separators, not blanks
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands, current = [], []
    try:
        for token in lexer:
            if token in SEPARATORS or set(token) <= set(";&|\n"):
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(token)
    except ValueError as e:
        block(f"the command cannot be parsed ({e})")
    if current:
        commands.append(current)
    return commands


def check(words):
    # Leading NAME=value assignments set the environment of the command.
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words = words[1:]
    if not words:
        return
    program = words[0]
    name = program.rsplit("/", 1)[-1]
    if program != name and not name.startswith("cds-"):
        block(f"`{program}`: run programs by name, not by path")
    if name not in ALLOWED:
        block(f"`{name}` is not an allowed program")
    for word in words[1:]:
        if word == "<" or word == "<<" or word == "<<<":
            continue
        for opt in FORBIDDEN_OPTIONS.get(name, ()):
            if word == opt or word.startswith(opt + "=") or (
                len(opt) == 2 and word.startswith(opt) and not word.startswith("--")
            ):
                block(f"`{name} {opt}` writes files or runs other programs")
    if name == "uniq":
        operands = [w for w in words[1:] if not w.startswith("-")]
        if len(operands) > 1:
            block("`uniq INPUT OUTPUT` writes a file")


def main():
    try:
        event = json.load(sys.stdin)
    except (ValueError, UnicodeDecodeError) as e:
        block(f"the hook input is not JSON ({e})")
    if not isinstance(event, dict) or event.get("tool_name") != "Bash":
        sys.exit(0)
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str) or not command.strip():
        block("the Bash call has no command")
    scan_quotes(command)
    for words in simple_commands(command):
        check(words)
    sys.exit(0)


if __name__ == "__main__":
    main()
