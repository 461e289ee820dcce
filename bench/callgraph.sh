#!/usr/bin/env bash
# bench/callgraph.sh [DJANGO_DIR]: Python's value-flow call graph (issue 12) on the Django 4.2
# sdist. Cold builds before and after (wall and user CPU seconds: CPU time is the steadier
# figure on a shared machine; peak RSS; index size), invoke edges by confidence, and a random
# sample of the invoke edges that are new, for checking by hand.
#
# "Before" is cds-build from BASE (default: main), built once into the bench cache in its own
# target directory; or the binary BEFORE_BIN names. "After" is this tree's release cds-build.
# RUNS (default 2) cold builds of each, alternating; SAMPLE (default 50) new edges, SEED (1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need python3 python3
need /usr/bin/time time
corpus=$(django_corpus "${1:-}")
base=${BASE:-main}
runs=${RUNS:-2}
sample=${SAMPLE:-50}
seed=${SEED:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

built cds-build cds-fmt cds-trav
after=$bin/cds-build
before=${BEFORE_BIN:-}
if [ -z "$before" ]; then
    rev=$(cd "$here" && git rev-parse "$base")
    before=$cache/before-$rev/release/cds-build
    if [ ! -x "$before" ]; then
        src=$cache/src-$rev
        rm -rf "$src" && mkdir -p "$src"
        (cd "$here" && git archive "$rev") | tar x -C "$src"
        (cd "$src" && CARGO_TARGET_DIR=$cache/before-$rev nice cargo build --release --bin cds-build)
    fi
fi

echo "corpus: $corpus"
echo "before: $before"
echo "after:  $after"
for i in $(seq "$runs"); do
    for v in before after; do
        b=$before
        [ $v = after ] && b=$after
        rm -rf "$work/idx-$v"
        /usr/bin/time -f "%e %U %M" -o "$work/time" "$b" --json --index "$work/idx-$v" "$corpus" \
            >"$work/$v.json" 2>/dev/null
        read -r secs user kb <"$work/time"
        size=$(du -sm "$work/idx-$v" | cut -f1)
        printf '%-6s run %d: %6.2f s wall  %6.2f s user CPU  peak RSS %4d MiB  index %4d MiB\n' \
            "$v" "$i" "$secs" "$user" $((kb / 1024)) "$size"
    done
done

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
