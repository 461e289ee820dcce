#!/usr/bin/env bash
# cds-search and cds-loc on the Django 4.2 index, against readtags and rg in the same run.
#
#   bench/search.sh [CORPUS_DIR]        (make bench-search)
#
# Whole-process medians (hyperfine) of: an exact name, a fuzzy name (one typo), a three-word
# BM25 query, a 2 KB issue, cds-loc on a 2 KB and a 4.7 KB issue (SWE-bench Lite dev issues,
# from $CDS_SHARED_BENCH, default ../shared/bench), and the three-stage pipeline
# `cds-search | cds-trav -h1 -r invoke -d up | cds-get`; and, as references, `readtags` for
# the name and `rg -i` for the phrase. CORPUS_DIR defaults to an unpacked Django 4.2 sdist in
# the cache ($CDS_BENCH_CACHE), downloaded with pip on first use. RUNS (default 100).
set -euo pipefail
source "$(dirname "$0")/common.sh"
shared=${CDS_SHARED_BENCH:-$(dirname "$here")/shared/bench}
runs=${RUNS:-100}
need hyperfine hyperfine
need readtags universal-ctags
need rg ripgrep
need jq jq

corpus=$(django_corpus "${1:-}")
built cds-build cds-search cds-trav cds-get cds-loc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDS_INDEX=$work/idx
export PATH=$bin:$PATH
cds-build -q --index "$CDS_INDEX" "$corpus"
(cd "$corpus" && ctags -R --languages=Python -f "$work/tags" .)
# Two Django issues of the dev split, of about 2 KB and 4.7 KB.
python3 - "$shared/swebench_lite_dev.jsonl" "$work" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for iid, name in (("django__django-11001", "issue2k.md"), ("django__django-11583", "issue5k.md")):
    r = next(r for r in rows if r["instance_id"] == iid)
    open(f"{sys.argv[2]}/{name}", "w").write(r["problem_statement"])
PY

cd "$corpus"
# The queries must find what they are meant to, or the timings mean nothing.
[ "$(cds-search -n1 --ids QuerySet)" = django/db/models/query.py:QuerySet ] || { echo "exact name lookup failed" >&2; exit 2; }
cds-search -n3 --json get_usrname | grep -q '"fuzzy d=1"' || { echo "fuzzy lookup failed" >&2; exit 2; }
echo "corpus: $corpus ($(find . -name '*.py' | wc -l) .py files); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "issues: $(wc -c < "$work/issue2k.md") and $(wc -c < "$work/issue5k.md") bytes"
echo

hyperfine -N --warmup 10 --runs "$runs" --style basic --export-json "$work/single.json" \
    -n "cds-search QuerySet (exact name)" "cds-search QuerySet" \
    -n "readtags QuerySet (ctags)" "readtags -t $work/tags QuerySet" \
    -n "cds-search get_usrname (fuzzy d=1)" "cds-search get_usrname" \
    -n "cds-search password reset token (BM25)" "cds-search password reset token" \
    -n "rg -i 'password reset token' (phrase)" "rg -i -q 'password reset token' ." \
    -n "cds-search -f 2KB issue" "cds-search -f $work/issue2k.md" \
    -n "cds-loc 2KB issue" "cds-loc --json $work/issue2k.md" \
    -n "cds-loc 4.7KB issue" "cds-loc --json $work/issue5k.md" \
    >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
hyperfine --warmup 10 --runs "$runs" --style basic --export-json "$work/pipe.json" \
    -n "cds-search -t function escape | cds-trav -h1 -r invoke -d up | cds-get" \
    "cds-search -n3 -t function escape 2>/dev/null | cds-trav -h1 -r invoke -d up 2>/dev/null | cds-get > /dev/null" \
    >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }

printf '%-62s %9s\n' "command (whole process, $runs runs)" "median"
jq -r '.results[] | [.command, (.median * 1000)] | @tsv' "$work/single.json" "$work/pipe.json" |
    while IFS=$'\t' read -r name median; do printf '%-62s %6.2f ms\n' "$name" "$median"; done
ratio() { jq -r --arg a "$1" --arg b "$2" '[.results[] | {(.command): .median}] | add | (.[$a] / .[$b] * 100 | round / 100)' "$work/single.json"; }
echo
echo "exact name / readtags: $(ratio 'cds-search QuerySet (exact name)' 'readtags QuerySet (ctags)')x"
echo "BM25 three words / rg -i phrase: $(ratio 'cds-search password reset token (BM25)' "rg -i 'password reset token' (phrase)")x"
