#!/usr/bin/env bash
# cds-build on the Linux kernel source, against universal-ctags in the same run.
#
#   bench/kernel.sh            (make bench-kernel)
#
# The corpus is Debian's linux-source-6.1 (a 140 MB .tar.xz of the whole source tree, 1.5 GB
# unpacked), downloaded and unpacked into the cache ($CDS_BENCH_CACHE, default
# ~/.cache/cds/bench) on first use; it is never copied into the repository.
#
# Debian adds `/*` to the tree's .gitignore (its packaging ignores the top level), so the build
# runs with --no-ignore, like `ctags -R`, which reads no ignore files.
#
# Prints: C lines, cold build (wall, user CPU, peak RSS), index size on disk and where it
# goes, `ctags -R` (wall, RSS) and the ratio, and the median per-process latency of
# `cds-search NAME`, `cds-get ID` and `cds-trav -h1 ID` on that index. RUNS=N repeats the
# builds (default 1: a cold build of the kernel takes minutes).
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-1}
need ctags universal-ctags
need /usr/bin/time time
need hyperfine hyperfine
need xz xz-utils
built cds-build cds-search cds-get cds-trav

kernel=$cache/corpora/kernel/linux-source-6.1
if [ ! -d "$kernel" ]; then
    mkdir -p "$cache/corpora/kernel-deb" "$cache/corpora/kernel"
    (cd "$cache/corpora/kernel-deb" && apt-get download -q linux-source-6.1 >/dev/null 2>&1 &&
        dpkg -x ./linux-source-6.1_*.deb x)
    tar xJf "$cache"/corpora/kernel-deb/x/usr/src/linux-source-6.1.tar.xz -C "$cache/corpora/kernel"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
idx=${KERNEL_INDEX:-$work/idx}
# The index (2.6 GB) and the tags file (0.4 GB) need room; a full disk mid-run ends the build
# with an I/O error after minutes, so say so first.
need_mb=3500
for dir in "$work" "$(dirname "$idx")"; do
    free_mb=$(df -Pm "$dir" | awk 'NR == 2 {print $4}')
    if [ "$free_mb" -lt "$need_mb" ]; then
        echo "bench/kernel.sh: $dir has $free_mb MB free; the index and tags need about $need_mb MB (free some space, or set TMPDIR or KERNEL_INDEX to a roomier disk)" >&2
        exit 2
    fi
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timed() { /usr/bin/time -f '%e %U %M' -o "$work/t" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }; cat "$work/t"; }

files=$(find "$kernel" -type f -name '*.[ch]' | wc -l)
lines=$(find "$kernel" -type f -name '*.[ch]' -print0 | xargs -0 cat | wc -l)
echo "linux-source-6.1: $files .c/.h files, $lines lines ($(nproc) cores)"

: > "$work/cold"
for _ in $(seq "$runs"); do
    rm -rf "$idx"
    timed "$bin/cds-build" --no-ignore --index "$idx" "$kernel" >> "$work/cold"
done
tail -1 "$work/out"
: > "$work/ctags"
for _ in $(seq "$runs"); do
    (cd "$kernel" && timed ctags -R -f "$work/tags" .) >> "$work/ctags"
done
cold=$(cut -d' ' -f1 "$work/cold" | median)
user=$(cut -d' ' -f2 "$work/cold" | median)
rss=$(($(cut -d' ' -f3 "$work/cold" | median | cut -d. -f1) / 1024))
ctags_s=$(cut -d' ' -f1 "$work/ctags" | median)
ctags_rss=$(($(cut -d' ' -f3 "$work/ctags" | median | cut -d. -f1) / 1024))
gen=$idx/$(cat "$idx/CURRENT")
echo "cds-build: ${cold} s wall, ${user} s user, ${rss} MiB peak RSS; ctags -R: ${ctags_s} s, ${ctags_rss} MiB;" \
    "ratio $(awk -v a="$cold" -v b="$ctags_s" 'BEGIN {printf "%.2fx", a / b}')"
echo "index: $(du -sm "$gen" | cut -f1) MiB ($(cd "$gen" && du -m -- * | sort -rn | awk '{printf "%s%s %s MiB", s, $2, $1; s=", "}'))"

# Queries: a function name ctags found, and its cds ID.
name=$(awk '/;"\tf(\t|$)/ && $1 ~ /^[a-z][a-z0-9_]*$/ && length($1) > 6 {print $1; exit}' "$work/tags")
id=$("$bin/cds-search" --index "$idx" -n 1 "$name" | head -1 | cut -f1)
hyperfine -N -i -w 3 -r 30 --export-json "$work/h.json" \
    "$bin/cds-search --index $idx -n 5 $name" \
    "$bin/cds-get --index $idx $id" \
    "$bin/cds-trav --index $idx -h1 $id" >/dev/null 2>&1
python3 - "$work/h.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    tool, *args = r["command"].split()
    print(f"{r['median'] * 1000:7.2f} ms  {tool.split('/')[-1]} {args[-1]}")
EOF
