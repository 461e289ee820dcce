#!/usr/bin/env bash
# The query tools on the Django 4.2 index: whole-process medians with hyperfine, and
# universal-ctags' readtags looking up one name in the same run, as the reference for a
# per-process lookup.
#
#   bench/query.sh [CORPUS_DIR]        (make bench-query)
#
# CORPUS_DIR defaults to an unpacked Django 4.2 sdist in the cache ($CDS_BENCH_CACHE, default
# ~/.cache/cds/bench), downloaded with pip on first use; it is never copied into the repository.
# The index and the tags file go to a temporary directory. RUNS (default 100) sets hyperfine's
# runs per command; CARGO_TARGET_DIR is honoured. Targets (DESIGN.md §7): cds-get and cds-trav -h1 under 2 ms, cds-trav -h2
# -d both from a hub and the three-stage pipelines under 10 ms. On a shared machine, compare
# with readtags' line, which runs in the same invocation.
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-100}
need hyperfine hyperfine
need ctags universal-ctags
need readtags universal-ctags
need jq jq

corpus=$(django_corpus "${1:-}")
built cds-build cds-search cds-trav cds-get cds-fmt

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDS_INDEX=$work/idx
export PATH=$bin:$PATH
cds-build -q --index "$CDS_INDEX" "$corpus"
(cd "$corpus" && ctags -R --languages=Python -f "$work/tags" .)

method=django/db/models/query.py:QuerySet.filter
hub=django/db/models/query.py:QuerySet
cd "$corpus"
# The walks must find what they are meant to, or the timings mean nothing.
[ "$(cds-get --ids "$method")" = "$method" ] || { echo "no $method in the index" >&2; exit 2; }
readtags -t "$work/tags" QuerySet | grep -q 'django/db/models/query.py' || { echo "readtags found no QuerySet" >&2; exit 2; }

echo "corpus: $corpus ($(find . -name '*.py' | wc -l) .py files); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "outputs: cds-get $(cds-get "$method" | wc -l) lines, cds-trav -h1 $(cds-trav -h1 "$method" | wc -l) entities," \
     "-h2 -d both $(cds-trav -h2 -d both "$hub" 2>/dev/null | wc -l) entities" \
     "($(cds-trav -h2 -d both --limit 0 --fanout 0 "$hub" | wc -l) unbounded)," \
     "pipeline $(cds-trav --ids -h0 "$method" | cds-trav -h1 | cds-get | wc -l) lines"
echo

# -N: no shell for single commands; the pipelines run in sh, whose own start hyperfine
# measures and subtracts.
hyperfine -N --warmup 10 --runs "$runs" --style basic --export-json "$work/single.json" \
    -n "cds-get ID" "cds-get $method" \
    -n "cds-trav -h1 ID" "cds-trav -h1 $method" \
    -n "cds-trav -h2 -d both HUB" "cds-trav -h2 -d both $hub" \
    -n "cds-trav -h2 -d both HUB --limit 0 --fanout 0" "cds-trav -h2 -d both --limit 0 --fanout 0 $hub" \
    -n "readtags NAME (ctags)" "readtags -t $work/tags QuerySet" >/dev/null 2>"$work/log" ||
    { cat "$work/log" >&2; exit 1; }
# The issue's pipeline and the ID list it feeds cds-get: ~200 entities of one 2,600-line file
# (line offsets are computed once per file, so they cost little more than one).
cds-search QuerySet 2>/dev/null | cds-trav -h1 2>/dev/null > "$work/ids"
head -1 "$work/ids" > "$work/id1"
echo "cds-get input: $(wc -l < "$work/ids") IDs, $(cut -f1 "$work/ids" | cut -d: -f1 | sort | uniq -c | sort -rn | head -1 | awk '{print $1}') of them in one file"
hyperfine --warmup 10 --runs "$runs" --style basic --export-json "$work/pipe.json" \
    -n "cds-search QuerySet | cds-trav -h1 | cds-get" \
    "cds-search QuerySet 2>/dev/null | cds-trav -h1 2>/dev/null | cds-get > /dev/null" \
    -n "cds-get < those IDs" "cds-get < $work/ids > /dev/null" \
    -n "cds-get < the first of them" "cds-get < $work/id1 > /dev/null" \
    -n "cds-search QuerySet (fst checksums on open)" "cds-search QuerySet > /dev/null 2>&1" \
    -n "cds-trav --ids | cds-trav -h1 | cds-get" \
    "cds-trav --ids -h0 $method | cds-trav -h1 | cds-get > /dev/null" \
    -n "callers' code: ... | cds-trav -h1 -r invoke -d up | cds-get" \
    "cds-trav --ids -h0 $method | cds-trav -h1 -r invoke -d up | cds-get > /dev/null" \
    >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }

printf '%-58s %9s %9s\n' "command (whole process, $runs runs)" "median" "mean"
jq -r '.results[] | [.command, (.median * 1000), (.mean * 1000)] | @tsv' "$work/single.json" "$work/pipe.json" |
    while IFS=$'\t' read -r name median mean; do
        printf '%-58s %6.2f ms %6.2f ms\n' "$name" "$median" "$mean"
    done
