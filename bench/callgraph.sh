#!/usr/bin/env bash
# bench/callgraph.sh [DJANGO_DIR] (make bench-callgraph): the cost and the edges of Python's
# value-flow call graph (issue 12) on the Django 4.2 sdist.
#
# Cold builds, interleaved, RUNS times each (default 3; medians): "before" (cds-build from
# BASE, default main, built once into the bench cache in its own target directory, or the
# binary BEFORE_BIN names), "no-flow" (this tree's cds-build with CDS_BENCH_NO_FLOW=1, which
# skips the value flow's facts and solve: for benchmarks only, never set it otherwise) and
# "after" (this tree's cds-build). Wall and user CPU seconds (CPU time is the steadier figure
# on a shared machine), peak RSS, index size, the value-flow solve (CDS_FLOW_DEBUG), and the
# after/no-flow ratios issue 12 bounds (within 10%, RSS under 500 MiB). Then whether the whole
# graph dump (`cds-fmt --graph`) and every invoke edge's confidence are the same before and
# after, invoke edges by confidence, and a random sample of the new ones, to check by hand.
# SAMPLE (default 50) new edges, SEED (1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need python3 python3
need /usr/bin/time time
corpus=$(django_corpus "${1:-}")
base=${BASE:-main}
runs=${RUNS:-3}
sample=${SAMPLE:-50}
seed=${SEED:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

built cds-build cds-fmt cds-trav
after=$bin/cds-build
before=$(before_bin "$base")

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "corpus: $corpus; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before:  $before"
echo "after:   $after (no-flow: the same with CDS_BENCH_NO_FLOW=1)"
for v in before noflow after; do : >"$work/times-$v"; done
for i in $(seq "$runs"); do
    for v in before noflow after; do
        b=$after
        [ $v = before ] && b=$before
        nf=
        [ $v = noflow ] && nf=1
        rm -rf "$work/idx-$v"
        CDS_BENCH_NO_FLOW=$nf CDS_FLOW_DEBUG=1 /usr/bin/time -f "%e %U %M" -o "$work/time" \
            "$b" --json --index "$work/idx-$v" "$corpus" >"$work/$v.json" 2>"$work/err"
        read -r secs user kb <"$work/time"
        # The solve's last round, in ms (0 without the value flow).
        solve=$(python3 -c '
import re, sys
t = [m.group(1) for m in re.finditer(r"flow round \d+: .*?, ([0-9.]+(?:ms|s|µs))", sys.stdin.read())]
x = t[-1] if t else "0ms"
v = float(re.match(r"[0-9.]+", x).group())
print(round(v if x.endswith("ms") else v / 1000 if x.endswith("µs") else v * 1000))' <"$work/err")
        size=$(du -sm "$work/idx-$v" | cut -f1)
        echo "$secs $user $((kb / 1024)) $solve $size" >>"$work/times-$v"
        printf '%-7s run %d: %6.2f s wall  %6.2f s user CPU  peak RSS %4d MiB  solve %5d ms  index %4d MiB\n' \
            "$v" "$i" "$secs" "$user" $((kb / 1024)) "$solve" "$size"
    done
done
echo
echo "medians of $runs         wall s   user s   RSS MiB   solve ms"
for v in before noflow after; do
    col() { cut -d' ' -f"$1" "$work/times-$v" | median; }
    printf '  %-20s %7.2f  %7.2f  %8.0f  %9.0f\n' "$v" "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)"
    eval "med_$v=\"$(col 1) $(col 2) $(col 3)\""
done
read -r nw nu _ <<<"$med_noflow"
read -r aw au ar <<<"$med_after"
python3 -c "
nw, nu, aw, au, ar = map(float, '$nw $nu $aw $au $ar'.split())
print(f'after / no-flow: wall {aw / nw:.3f}, user CPU {au / nu:.3f} (issue 12: at most 1.10); '
      f'peak RSS {ar:.0f} MiB (at most 500)')"

# Every invoke edge of an index: one hop down from every file, class and function.
edges() {
    "$bin/cds-fmt" --graph --index "$1" | python3 -c '
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    if r.get("kind") == "node" and r.get("type") in ("file", "class", "function"):
        print(r["id"])' |
        "$bin/cds-trav" --index "$1" -h 1 -r invoke --tests --edges --json --limit 100000000 \
            --fanout 100000000
}
edges "$work/idx-before" >"$work/before.jsonl"
edges "$work/idx-after" >"$work/after.jsonl"
"$bin/cds-fmt" --graph --index "$work/idx-before" >"$work/before.graph"
"$bin/cds-fmt" --graph --index "$work/idx-after" >"$work/after.graph"
echo
if cmp -s "$work/before.graph" "$work/after.graph"; then
    echo "graph dump (cds-fmt --graph): identical before and after ($(wc -l <"$work/after.graph") lines)"
else
    echo "graph dump (cds-fmt --graph): DIFFERS: $(diff "$work/before.graph" "$work/after.graph" | grep -c '^[<>]') lines"
fi
if cmp -s <(sort "$work/before.jsonl") <(sort "$work/after.jsonl"); then
    echo "invoke edges with their confidence: identical before and after"
else
    echo "invoke edges with their confidence: DIFFER"
fi

python3 - "$work/before.jsonl" "$work/after.jsonl" "$sample" "$seed" <<'PY'
import json, random, sys
FLOW = 240
def load(p):
    return {(r["src"], r["dst"]): r["meta"] for r in map(json.loads, open(p))}
before, after = load(sys.argv[1]), load(sys.argv[2])
def bucket(m):
    flow = m >= FLOW
    n = m - FLOW if flow else m
    c = "exact" if n == 0 else "guess" if n == 1 else "one-of-n"
    return ("value-flow " if flow else "") + c
def counts(es):
    out = {}
    for m in es.values():
        out[bucket(m)] = out.get(bucket(m), 0) + 1
    return out
cb, ca = counts(before), counts(after)
print("\ninvoke edges by confidence      before     after")
for k in ["exact", "guess", "one-of-n", "value-flow exact", "value-flow one-of-n"]:
    print(f"  {k:<26} {cb.get(k, 0):>9} {ca.get(k, 0):>9}")
print(f"  {'total':<26} {len(before):>9} {len(after):>9}")
new = sorted(k for k in after if k not in before)
gone = sorted(k for k in before if k not in after)
print(f"\nnew edges: {len(new)}; edges gone: {len(gone)} (guesses the value flow replaced)")
random.seed(int(sys.argv[4]))
print(f"\nrandom sample of {sys.argv[3]} new edges (src -> dst, confidence):")
for s, d in random.sample(new, min(int(sys.argv[3]), len(new))):
    print(f"  {s} -> {d}  [{bucket(after[(s, d)])}]")
PY
