#!/usr/bin/env bash
# Rebuilds after git moves HEAD on, this tree's cds-build against another's, interleaved.
#
#   BASE=REV bench/commits.sh GIT_DIR        (make bench-commits GIT=GIT_DIR)
#
# GIT_DIR is a repository with a long history (Django's: `fetch` github:django/django, or the
# SWE-bench mirror bench/loc/README.md uses). It is cloned --shared (no object is copied) into
# a temporary work tree at its HEAD. "before" is cds-build from BASE (default main, built once
# into the bench cache) or BEFORE_BIN; "after" is this tree's. Each builds an index of its own,
# then RUNS times (default 9): an empty commit, each rebuilds; a commit changing one source
# file, each rebuilds; a new untracked source file (same HEAD), each rebuilds. Prints the
# medians of each.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
git_dir=${1:?usage: bench/commits.sh GIT_DIR}
runs=${RUNS:-9}
built cds-build
after=$bin/cds-build
before=$(before_bin "${BASE:-main}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/tree
git clone -q --shared "$git_dir" "$tree"
git -C "$tree" config user.email bench@example.com
git -C "$tree" config user.name bench
echo "/.cds-*/" >> "$tree/.git/info/exclude"
commits=$(git -C "$tree" rev-list --count HEAD)
echo "repository: $git_dir ($commits commits); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before: $before"
echo "after:  $after"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
exe_of() { if [ "$1" = after ]; then echo "$after"; else echo "$before"; fi; }
ms() {
    local start end
    start=${EPOCHREALTIME/[.,]/}
    "$@" > /dev/null
    end=${EPOCHREALTIME/[.,]/}
    echo "$(( (end - start) / 1000 ))"
}
for which in before after; do
    "$(exe_of "$which")" -q --index "$tree/.cds-$which" "$tree"
    : > "$work/empty-$which"; : > "$work/edit-$which"; : > "$work/new-$which"
done
source_file=$(cd "$tree" && git ls-files '*.py' | awk 'NR == 1')
for i in $(seq "$runs"); do
    git -C "$tree" commit -q --allow-empty -m "bench: empty commit $i"
    for which in before after; do
        ms "$(exe_of "$which")" -q --index "$tree/.cds-$which" "$tree" >> "$work/empty-$which"
    done
    echo "# bench $i" >> "$tree/$source_file"
    git -C "$tree" commit -q -am "bench: a comment in $source_file"
    for which in before after; do
        ms "$(exe_of "$which")" -q --index "$tree/.cds-$which" "$tree" >> "$work/edit-$which"
    done
    mkdir -p "$tree/bench_new"
    printf 'def bench_new_%s():\n    return %s\n' "$i" "$i" > "$tree/bench_new/new_$i.py"
    for which in before after; do
        ms "$(exe_of "$which")" -q --index "$tree/.cds-$which" "$tree" >> "$work/new-$which"
    done
done

printf '\n%-58s %8s %8s\n' "what (ms, median of $runs)" before after
for what in empty edit new; do
    case $what in
        empty) label="rebuild after an empty commit" ;;
        edit) label="rebuild after a commit changing one file" ;;
        new) label="rebuild after a new untracked file (same HEAD)" ;;
    esac
    printf '%-58s %8s %8s\n' "$label" "$(median < "$work/$what-before")" "$(median < "$work/$what-after")"
done
