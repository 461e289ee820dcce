#!/usr/bin/env bash
# One-file edits on the Django 4.2 sdist, this tree's cds-build against another's, interleaved.
#
#   BASE=REV bench/edits.sh [CORPUS_DIR]        (make bench-edits)
#
# "before" is cds-build from BASE (default main), built once into the bench cache in its own
# target directory, or the binary BEFORE_BIN names; "after" is this tree's. ROUNDS times
# (default 3): a cold build by each, then RUNS (default 9) edits of django/db/models/query.py
# through `cds-build`, the two binaries in turn edit by edit, then RUNS more seen by each one's
# running `cds-build --watch` (write to new generation), each edit a comment that brings a word
# new to the index (the edges are kept; the term dictionary grows), with EDIT=definition a
# function added at the end of the file (the whole link runs again, value flow included), or
# with EDIT=javascript a function added to one of Django's JavaScript files,
# django/contrib/admin/static/admin/js/actions.js (only the JavaScript family is linked again;
# Python's links are kept).
# Prints the medians of each round.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
corpus=$(django_corpus "${1:-}")
base=${BASE:-main}
rounds=${ROUNDS:-3}
runs=${RUNS:-9}
edit=${EDIT:-comment}
case $edit in
    comment | definition) target=$corpus/django/db/models/query.py ;;
    javascript) target=$corpus/django/contrib/admin/static/admin/js/actions.js ;;
    *) echo "EDIT is comment, definition or javascript" >&2; exit 2 ;;
esac
work=$(mktemp -d)
cp "$target" "$work/target.orig"
trap 'cp "$work/target.orig" "$target"; rm -rf "$work"' EXIT

built cds-build
after=$bin/cds-build
before=$(before_bin "$base")

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
word() {
    if [ "$edit" = javascript ]; then
        printf '\nfunction benchEdit_%s_%s_%s() {\n    return %s;\n}\n' "$$" "$1" "$2" "$2"
    elif [ "$edit" = definition ]; then
        printf '\n\ndef bench_edit_%s_%s_%s():\n    return %s\n' "$$" "$1" "$2" "$2"
    else
        printf '# bench edit %s benchword%s%s%s\n' "$2" "$$" "$1" "$2"
    fi
}

echo "corpus: $corpus; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); edit: $edit"
echo "before: $before"
echo "after:  $after"
exe_of() { if [ "$1" = after ]; then echo "$after"; else echo "$before"; fi; }
for round in $(seq "$rounds"); do
    cp "$work/target.orig" "$target"
    for which in before after; do
        rm -rf "$work/idx-$which"
        "$(exe_of "$which")" -q --index "$work/idx-$which" "$corpus"
        : > "$work/cli-$which"
    done
    # Through cds-build: the two binaries in turn, edit by edit, each on its own index (the
    # machine drifts more between rounds than some of the differences measured).
    for i in $(seq "$runs"); do
        for which in before after; do
            word "cli$round$which" "$i" >> "$target"
            start=${EPOCHREALTIME/[.,]/}
            "$(exe_of "$which")" -q --index "$work/idx-$which" "$corpus"
            end=${EPOCHREALTIME/[.,]/}
            echo "$(( (end - start) / 1000 ))" >> "$work/cli-$which"
        done
    done
    for which in before after; do
        exe=$(exe_of "$which")
        # The other binary's edits since this index was built: a rebuild the watcher would
        # otherwise start with, while the first edit is measured.
        "$exe" -q --index "$work/idx-$which" "$corpus"
        watched() { word "watch$round$which" "$1"; }
        # watch_latencies runs "$exe" (BEFORE_BIN may name a binary not called cds-build).
        watch_ms=$(watch_latencies "$work/idx-$which" "$corpus" "$target" \
            "$runs" watched | median)
        printf 'round %s %-6s cds-build %5s ms   --watch %5s ms   (load %s)\n' "$round" "$which" \
            "$(median < "$work/cli-$which")" "$watch_ms" "$(cut -d' ' -f1 /proc/loadavg)"
    done
done
