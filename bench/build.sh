#!/usr/bin/env bash
# cds-build on the Django 4.2 sdist, against universal-ctags in the same run.
#
#   bench/build.sh [CORPUS_DIR]        (make bench-build)
#
# CORPUS_DIR defaults to an unpacked Django 4.2 sdist in the cache ($CDS_BENCH_CACHE, default
# ~/.cache/cds/bench), downloaded with pip on first use; it is never copied into the repository.
# Prints medians of: cold build (wall, peak RSS), rebuild with nothing changed, rebuild after
# editing one file (a definition added; then a comment, which linking does not read, bringing a
# word new to the index), the
# two edits seen by a running `cds-build --watch` (write to new generation), index
# size, `ctags -R` on the same files, and the ratio.
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-5}
need ctags universal-ctags
need /usr/bin/time time

corpus=$(django_corpus "${1:-}")
built cds-build

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
idx=$work/idx
py_files=$(find "$corpus" -name '*.py' | wc -l)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Runs a command, prints "seconds kilobytes".
timed() { /usr/bin/time -f '%e %M' -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }

echo "corpus: $corpus ($py_files .py files); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/cold"
for _ in $(seq "$runs"); do
    rm -rf "$idx"
    sync
    timed "$bin/cds-build" -q --index "$idx" "$corpus" >> "$work/cold"
done
cold_s=$(cut -d' ' -f1 "$work/cold" | median)
cold_kb=$(cut -d' ' -f2 "$work/cold" | median)

: > "$work/noop"
for _ in $(seq "$runs"); do timed "$bin/cds-build" -q --index "$idx" "$corpus" | cut -d' ' -f1 >> "$work/noop"; done
noop_s=$(median < "$work/noop")

target=$corpus/django/db/models/query.py
cp "$target" "$work/query.py.orig"
: > "$work/edit"
for i in $(seq "$runs"); do
    printf '\n\ndef bench_added_%s():\n    return %s\n' "$i" "$i" >> "$target"
    timed "$bin/cds-build" -q --index "$idx" "$corpus" | cut -d' ' -f1 >> "$work/edit"
done
edit_s=$(median < "$work/edit")

# An edit linking does not read (a comment): the previous generation's edges are kept.
: > "$work/comment"
for i in $(seq "$runs"); do
    printf '# bench comment %s benchword%s%s\n' "$i" "$$" "$i" >> "$target"
    timed "$bin/cds-build" -q --index "$idx" "$corpus" | cut -d' ' -f1 >> "$work/comment"
done
comment_s=$(median < "$work/comment")

# cds-build --watch: from the write of one file to CURRENT naming the new generation.
watched_line() { printf '\n\ndef bench_watched_%s():\n    return %s\n' "$1" "$1"; }
watch_latencies "$idx" "$corpus" "$target" "$runs" watched_line > "$work/watch"
watch_ms=$(median < "$work/watch")
commented_line() { printf '# bench watched comment %s benchword%s%s\n' "$1" "$$" "$1"; }
watch_latencies "$idx" "$corpus" "$target" "$runs" commented_line > "$work/watch-comment"
watch_comment_ms=$(median < "$work/watch-comment")
cp "$work/query.py.orig" "$target"
"$bin/cds-build" -q --index "$idx" "$corpus"
size_mb=$(du -sm "$idx/$(cat "$idx/CURRENT")" | cut -f1)

: > "$work/ctags"
for _ in $(seq "$runs"); do
    (cd "$corpus" && timed ctags -R -f "$work/tags" .) | cut -d' ' -f1 >> "$work/ctags"
done
ctags_s=$(median < "$work/ctags")

printf '\n%-44s %10s\n' "what (median of $runs)" "result"
printf '%-44s %9ss\n' "cds-build cold (walk, parse, link, index)" "$cold_s"
printf '%-44s %8s MiB\n' "  peak RSS" "$((cold_kb / 1024))"
printf '%-44s %9ss\n' "cds-build again, nothing changed" "$noop_s"
printf '%-44s %9ss\n' "cds-build after editing one file" "$edit_s"
printf '%-44s %9ss\n' "  after a comment edit (edges kept)" "$comment_s"
printf '%-44s %7s ms\n' "--watch: one-file write to new generation" "$watch_ms"
printf '%-44s %7s ms\n' "  a comment edit (edges kept)" "$watch_comment_ms"
printf '%-44s %8s MiB\n' "index size on disk" "$size_mb"
printf '%-44s %9ss\n' "ctags -R (all languages, definitions only)" "$ctags_s"
printf '%-44s %9sx\n' "cold build / ctags" "$(awk -v a="$cold_s" -v b="$ctags_s" 'BEGIN {printf "%.2f", a / b}')"
