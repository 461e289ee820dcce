# cds: build, test, lint, docs, benchmarks, install.
#
#   make demo         build, index examples/demo-repo, run a pipeline on it
#   make test         the test suite (what CI runs)
#   make lint         rustfmt and clippy, warnings denied
#   make man completions   regenerate man/ and completions/ from the flag tables
#   make kits         regenerate the agent kits in examples/agents/ (cds-kit --examples)
#   make test-agents  the kits checked with the real Claude Code, Gemini, Codex, OpenCode (npm)
#   make bench-build  cds-build on the Django 4.2 sdist, against ctags (downloads it)
#   make bench-build-langs  the same on a large project of each other language
#   make bench-kernel the Linux kernel source (Debian's linux-source-6.1), against ctags
#   make bench-mcp    100 sequential tools/call requests to cds-mcp on the Django 4.2 index
#   make bench-callgraph  Python's value flow on Django 4.2: cost with and without it, edges
#   make bench-edits  one-file edits on Django 4.2 through cds-build and --watch, against BASE
#                     (EDIT=definition: a function added each time instead of a comment;
#                     EDIT=javascript: a function added to one of its JavaScript files)
#   make bench-commits GIT=DIR  rebuilds after commits in a clone of DIR, against BASE
#   make install      PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
DESTDIR ?=
CARGO ?= cargo
BINS := cds-build cds-search cds-trav cds-get cds-fmt cds-loc cds-mcp cds-kit
RELEASE := target/release
DEMO := examples/demo-repo
# The MCP Python SDK the cds-mcp tests drive it with (tests/mcp/requirements.txt), in a venv.
PYTHON ?= python3
MCP_VENV := target/mcp-venv

.PHONY: all build test test-deps lint fmt man completions check-generated kits test-agents demo \
	install uninstall clean bench bench-build bench-build-langs bench-query bench-search bench-loc \
	bench-mcp bench-kernel bench-callgraph bench-edits bench-commits

all: build

build:
	$(CARGO) build --release --locked --bins

test: test-deps
	CDS_MCP_PYTHON=$(CURDIR)/$(MCP_VENV)/bin/python $(CARGO) test --locked --all-targets

# Installs the test dependencies that are not Rust crates, once (fails loudly if it cannot).
test-deps: $(MCP_VENV)/.installed

$(MCP_VENV)/.installed: tests/mcp/requirements.txt
	rm -rf $(MCP_VENV)
	$(PYTHON) -m venv $(MCP_VENV)
	$(MCP_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
	touch $@

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

man: build
	@mkdir -p man
	@for b in $(BINS); do $(RELEASE)/$$b --generate man > man/$$b.1; done

completions: build
	@mkdir -p completions/bash completions/zsh completions/fish
	@for b in $(BINS); do \
		$(RELEASE)/$$b --generate complete-bash > completions/bash/$$b; \
		$(RELEASE)/$$b --generate complete-zsh > completions/zsh/_$$b; \
		$(RELEASE)/$$b --generate complete-fish > completions/fish/$$b.fish; \
	done

# Regenerates man pages and completions and fails if the committed ones differ.
check-generated: man completions
	git diff --exit-code -- man completions

# The committed kits are cds-kit's output (lib/kit); a test fails when they are stale.
kits: build
	$(RELEASE)/cds-kit --examples examples/agents

# Installs the clients from npm under target/agents and checks the kits with their own
# commands (claude/gemini/codex/opencode mcp list), in a throwaway HOME. Not part of make test.
test-agents: build
	tests/agents/check.sh

demo: build
	@echo '$$ cds-build $(DEMO)'
	@$(RELEASE)/cds-build $(DEMO)
	@echo
	@echo '$$ cd $(DEMO)'
	@echo '$$ cds-search -n1 -t function sanitize user input | cds-trav -h1 -r invoke -d up'
	@cd $(DEMO) && ../../$(RELEASE)/cds-search -n1 -t function sanitize user input \
		| ../../$(RELEASE)/cds-trav -h1 -r invoke -d up
	@echo
	@echo '$$ cds-search -n1 -t function sanitize user input | cds-trav -h1 -r invoke -d up --no-roots | cds-get'
	@cd $(DEMO) && ../../$(RELEASE)/cds-search -n1 -t function sanitize user input \
		| ../../$(RELEASE)/cds-trav -h1 -r invoke -d up --no-roots \
		| ../../$(RELEASE)/cds-get
	@echo
	@echo '$$ cds-search -n1 -t function escape html | cds-trav -h1 -r invoke -d up   # the TypeScript side'
	@cd $(DEMO) && ../../$(RELEASE)/cds-search -n1 -t function escape html \
		| ../../$(RELEASE)/cds-trav -h1 -r invoke -d up

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	for b in $(BINS); do install -m 755 $(RELEASE)/$$b $(DESTDIR)$(PREFIX)/bin/$$b; done
	for m in man/*.1; do install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done
	install -m 644 man/cds.7 $(DESTDIR)$(PREFIX)/share/man/man7/cds.7
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	for b in $(BINS); do \
		install -m 644 completions/bash/$$b $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$b; \
		install -m 644 completions/zsh/_$$b $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$b; \
		install -m 644 completions/fish/$$b.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$b.fish; \
	done

uninstall:
	for b in $(BINS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$b $(DESTDIR)$(PREFIX)/share/man/man1/$$b.1; done
	rm -f $(DESTDIR)$(PREFIX)/share/man/man7/cds.7

bench: bench-build bench-query bench-search

bench-build: build
	bench/build.sh

# A large project of each language (JS, TS, Java, Go, Rust), fetched from registries.
bench-build-langs: build
	bench/langs.sh

bench-query: build
	bench/query.sh

bench-search: build
	bench/search.sh

bench-kernel: build
	bench/kernel.sh

bench-mcp: build
	$(PYTHON) bench/mcp.py

# Python's value flow (issue 12): cold builds before (BASE, default main), without and with the
# value flow; the graph identity check; invoke edges by confidence; a sample of new edges.
bench-callgraph: build
	bench/callgraph.sh

bench-edits: build
	bench/edits.sh

bench-commits: build
	bench/commits.sh $(GIT)

# GIT_ROOT: a directory of git mirrors (see bench/loc/README.md).
# SPLIT: lite (default), py, multi (SWE-bench Multilingual, per-language table), or a JSONL path.
bench-loc: build
	python3 bench/loc/run.py $(if $(GIT_ROOT),--git-root $(GIT_ROOT)) $(if $(SPLIT),--split $(SPLIT))

clean:
	$(CARGO) clean
