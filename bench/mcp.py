#!/usr/bin/env python3
"""cds-mcp latency: 100 sequential tools/call requests per tool through one server on the
Django 4.2 index, and the median, 90th percentile and worst time per call.

    python3 bench/mcp.py [CORPUS_DIR]            (make bench-mcp)

CORPUS_DIR defaults to an unpacked Django 4.2 sdist in the cache ($CDS_BENCH_CACHE, default
~/.cache/cds/bench), downloaded with pip on first use, as bench/query.sh does; it is never copied
into the repository. The index goes to a temporary directory (or $CDS_BENCH_INDEX, kept). The
release binaries come from $CARGO_TARGET_DIR (default target/)/release. A call's time is from
writing its request line to reading its answer line, so it includes JSON encoding and the pipe.
Targets (issue 6): under 2 ms for cds_retrieve and cds_traverse, under 20 ms for cds_search.
Only the standard library is used.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALLS = 100

# Each tool cycles through its own list of arguments, as an agent's calls vary.
RETRIEVE = [
    "django/db/models/query.py:QuerySet.filter",
    "django/db/models/query.py:QuerySet.bulk_create",
    "django/http/request.py:HttpRequest.get_host",
    "django/utils/html.py:escape",
    "django/db/models/fields/__init__.py:CharField.__init__",
    "django/core/handlers/base.py:BaseHandler.get_response",
    "django/forms/forms.py:BaseForm.is_valid",
    "django/template/base.py:Template.render",
    "django/urls/resolvers.py:URLResolver.resolve",
    "django/contrib/auth/models.py:User",
]
TRAVERSE = [
    {"ids": ["django/db/models/query.py:QuerySet.filter"], "direction": "up", "rel": ["invoke"]},
    {"ids": ["django/utils/html.py:escape"], "direction": "up", "rel": ["invoke"]},
    {"ids": ["django/db/models/query.py:QuerySet"], "hops": 1},
    {"ids": ["django/forms/forms.py:BaseForm"], "direction": "up", "rel": ["inherit"]},
    {"ids": ["django/http/request.py"], "direction": "up", "rel": ["import"]},
]
SEARCH = [
    "QuerySet",
    "bulk_create",
    "QuerySet.filter",
    "prefetch related objects",
    "csrf token",
    "get_host",
    "sanitize user input",
    "ModelAdmin.get_queryset",
    "select_for_update nowait",
    "urlencode",
]


def corpus_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    cache = os.environ.get("CDS_BENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cds", "bench"
    )
    corpus = os.path.join(cache, "Django-4.2")
    if not os.path.isdir(corpus):
        os.makedirs(cache, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "django==4.2", "-d", cache],
            check=True, stdout=subprocess.DEVNULL,
        )
        subprocess.run(["tar", "xzf", os.path.join(cache, "Django-4.2.tar.gz"), "-C", cache], check=True)
    return corpus


def main():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(HERE, "target")
    bin_dir = os.path.join(target, "release")
    for b in ("cds-build", "cds-mcp"):
        if not os.access(os.path.join(bin_dir, b), os.X_OK):
            subprocess.run(["cargo", "build", "--release", "--bins"], cwd=HERE, check=True)
            break
    corpus = corpus_dir()
    work = None
    index = os.environ.get("CDS_BENCH_INDEX")
    if not index:
        work = tempfile.mkdtemp(prefix="cds-bench-mcp-")
        index = os.path.join(work, "idx")
    try:
        t0 = time.perf_counter()
        subprocess.run([os.path.join(bin_dir, "cds-build"), "-q", "--index", index, corpus], check=True)
        print(f"index: {corpus} -> {index} ({time.perf_counter() - t0:.1f} s)")
        server = subprocess.Popen(
            [os.path.join(bin_dir, "cds-mcp"), "--index", index],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        next_id = [0]

        def call(method, params):
            next_id[0] += 1
            line = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
            start = time.perf_counter()
            server.stdin.write(line.encode() + b"\n")
            server.stdin.flush()
            answer = server.stdout.readline()
            took = time.perf_counter() - start
            msg = json.loads(answer)
            if "error" in msg or msg.get("result", {}).get("isError"):
                raise SystemExit(f"{method} {params} failed: {answer[:300]!r}")
            return took, msg

        call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "bench", "version": "0"}})
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        server.stdin.flush()
        runs = {
            "cds_retrieve": [{"ids": [RETRIEVE[i % len(RETRIEVE)]]} for i in range(CALLS)],
            "cds_traverse": [TRAVERSE[i % len(TRAVERSE)] for i in range(CALLS)],
            "cds_search": [{"query": SEARCH[i % len(SEARCH)]} for i in range(CALLS)],
        }
        targets = {"cds_retrieve": 2.0, "cds_traverse": 2.0, "cds_search": 20.0}
        # One warm-up call per tool maps the index files, as a session's first call does.
        for tool, args in runs.items():
            call("tools/call", {"name": tool, "arguments": args[0]})
        print(f"{CALLS} sequential tools/call requests per tool, one server, times in ms")
        print(f"{'tool':<14} {'median':>8} {'p90':>8} {'max':>8}  target")
        for tool, args in runs.items():
            times = [call("tools/call", {"name": tool, "arguments": a})[0] * 1000 for a in args]
            times.sort()
            med = statistics.median(times)
            p90 = times[int(len(times) * 0.9) - 1]
            ok = "ok" if med < targets[tool] else "MISSED"
            print(f"{tool:<14} {med:8.3f} {p90:8.3f} {times[-1]:8.3f}  < {targets[tool]:g} ms {ok}")
        server.stdin.close()
        server.wait(timeout=10)
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
