#!/usr/bin/env bash
# cds-build on a large real project of each language, against universal-ctags in the same run.
#
#   bench/langs.sh [LANG...]         (make bench-build-langs; LANG: js ts java go rust c cpp ruby php)
#
# Corpora come from package registries on first use and stay in the cache ($CDS_BENCH_CACHE,
# default ~/.cache/cds/bench); they are never copied into the repository:
#
#   js    three.js 0.160.0 (npm: sources, examples and its built bundles)
#   ts    effect 3.10.0 `src/` (npm: the TypeScript sources it publishes)
#   java  the JDK 17 sources of `java.util` (Debian's openjdk-17-source)
#   go    the Go 1.19 standard library's `net` (Debian's golang-1.19-src)
#   rust  tokio 1.35.1's crate (cargo vendor from crates.io)
#   c     zstd 1.5.7, as the zstd-sys 2.1.3 crate vendors it (cargo vendor from crates.io)
#   cpp   googletest 1.12.1 with googlemock (Debian's googletest: /usr/src/googletest)
#   ruby  rubocop 1.39.0 (Debian's rubocop: the gem's lib/, exe/ and config)
#   php   Doctrine ORM 2.14's library (Debian's php-doctrine-orm)
#
# Per corpus: lines of code, cold build (median wall, peak RSS and CPU time: user + system),
# rebuild with nothing changed, rebuild after editing one file, the same edit seen by a running
# `cds-build --watch` (write to new generation, ms), index size, `ctags -R` on the same tree
# (wall and CPU), and the ratio of the walls; then the median of a `cds-search NAME` process on it. On a loaded
# machine the CPU times compare better than the walls (cds-build runs a thread per core).
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
need ctags universal-ctags
need /usr/bin/time time
need hyperfine hyperfine
built cds-build cds-search

corpora=$cache/corpora
mkdir -p "$corpora"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timed() { /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }

npm_src() { # npm_src NAME@VERSION DEST: the package's files, unpacked
    local dest=$2
    [ -d "$dest" ] && return
    mkdir -p "$dest"
    (cd "$work" && npm pack --silent "$1" >/dev/null 2>&1 && tar xzf ./*.tgz -C "$dest" && rm -f ./*.tgz)
}

deb_src() { # deb_src PACKAGE DEST: the package's files, unpacked
    local dest=$2
    [ -d "$dest" ] && return
    mkdir -p "$dest"
    (cd "$work" && apt-get download -q "$1" >/dev/null 2>&1 && dpkg -x ./*.deb "$dest" && rm -f ./*.deb)
}

cargo_vendor() { # cargo_vendor DIR DEPENDENCY-LINE: the crates.io sources of a dependency
    [ -d "$1/vendor" ] && return
    mkdir -p "$1/src"
    printf '[package]\nname = "corpus"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s\n' "$2" > "$1/Cargo.toml"
    echo 'fn main() {}' > "$1/src/main.rs"
    (cd "$1" && cargo vendor -q vendor >/dev/null)
}

corpus() { # corpus LANG: prints the corpus directory, fetching it on first use
    case $1 in
    js)
        npm_src three@0.160.0 "$corpora/three"
        echo "$corpora/three/package" ;;
    ts)
        npm_src effect@3.10.0 "$corpora/effect"
        echo "$corpora/effect/package/src" ;;
    java)
        deb_src openjdk-17-source "$corpora/jdk-deb"
        if [ ! -d "$corpora/jdk" ]; then
            mkdir -p "$corpora/jdk"
            unzip -q "$(find "$corpora/jdk-deb" -name src.zip | head -1)" 'java.base/*' -d "$corpora/jdk"
        fi
        echo "$corpora/jdk/java.base/java/util" ;;
    go)
        deb_src golang-1.19-src "$corpora/go-deb"
        echo "$(find "$corpora/go-deb" -maxdepth 4 -type d -name src -path '*go-1.19*' | head -1)/net" ;;
    rust)
        cargo_vendor "$corpora/rust" 'tokio = { version = "=1.35.1", features = ["full"] }'
        echo "$corpora/rust/vendor/tokio" ;;
    c)
        cargo_vendor "$corpora/c" 'zstd-sys = "=2.1.3"'
        echo "$corpora/c/vendor/zstd-sys" ;;
    cpp)
        deb_src googletest "$corpora/googletest"
        echo "$corpora/googletest/usr/src/googletest" ;;
    ruby)
        deb_src rubocop "$corpora/rubocop-deb"
        echo "$(find "$corpora/rubocop-deb" -maxdepth 6 -type d -name 'rubocop-[0-9]*' | head -1)" ;;
    php)
        deb_src php-doctrine-orm "$corpora/php-deb"
        echo "$corpora/php-deb/usr/share/php/Doctrine" ;;
    *) echo "unknown corpus $1 (js ts java go rust c cpp ruby php)" >&2; exit 2 ;;
    esac
}

ext_of() { # the extensions counted as the language's lines
    case $1 in
    js) echo 'js|jsx|mjs|cjs' ;; ts) echo 'ts|tsx|mts|cts' ;; java) echo java ;; go) echo go ;; rust) echo rs ;;
    c) echo 'c|h' ;; cpp) echo 'cc|cpp|cxx|hpp|hh|hxx|h' ;;
    ruby) echo rb ;;
    php) echo php ;;
    esac
}

edit_one() { # a file of the language to edit, and the line appended to it
    case $1 in
    js | ts) echo "export function benchAdded$2() { return $2; }" ;;
    java) echo "class BenchAdded$2 { int f() { return $2; } }" ;;
    go) echo "func benchAdded$2() int { return $2 }" ;;
    rust) echo "pub fn bench_added_$2() -> u32 { $2 }" ;;
    c | cpp) echo "int bench_added_$2(void) { return $2; }" ;;
    ruby) echo "def bench_added_$2 = $2" ;;
    php) echo "function bench_added_$2() { return $2; }" ;;
    esac
}

printf '%-6s %9s %9s %9s %9s %8s %9s %9s %8s %9s %9s %8s %9s\n' lang lines cold_s cpu_s rss_MiB noop_s edit_s watch_ms idx_MiB ctags_s ctags_cpu ratio search_ms
for lang in "${@:-js ts java go rust c cpp ruby php}"; do
    for l in $lang; do
        dir=$(corpus "$l")
        ext=$(ext_of "$l")
        lines=$(find "$dir" -type f | grep -E "\.($ext)$" | xargs cat 2>/dev/null | wc -l)
        idx=$work/idx-$l
        : > "$work/cold"
        for _ in $(seq "$runs"); do
            rm -rf "$idx"
            timed "$bin/cds-build" -q --no-ignore --index "$idx" "$dir" >> "$work/cold"
        done
        target=$(find "$dir" -type f | grep -E "\.($ext)$" | grep -v -E "/(build|dist|testdata)/" | sort | sed -n 1p)
        cp "$target" "$work/orig"
        : > "$work/edit"
        for i in $(seq "$runs"); do
            edit_one "$l" "$i" >> "$target"
            timed "$bin/cds-build" -q --no-ignore --index "$idx" "$dir" | cut -d' ' -f1 >> "$work/edit"
        done
        watched_line() { edit_one "$l" "$(($1 + 100))"; }
        watch_latencies "$idx" "$dir" "$target" "$runs" watched_line --no-ignore > "$work/watch"
        cp "$work/orig" "$target"
        "$bin/cds-build" -q --no-ignore --index "$idx" "$dir"
        : > "$work/noop"
        for _ in $(seq "$runs"); do
            timed "$bin/cds-build" -q --no-ignore --index "$idx" "$dir" | cut -d' ' -f1 >> "$work/noop"
        done
        : > "$work/ctags"
        for _ in $(seq "$runs"); do
            (cd "$dir" && timed ctags -R -f "$work/tags" .) >> "$work/ctags"
        done
        # A name that the corpus defines: the first function name ctags found.
        name=$(grep -v '^!' "$work/tags" |
            awk -F'\t' '$4 ~ /^f|^m/ && $1 ~ /^[A-Za-z_][A-Za-z0-9_][A-Za-z0-9_][A-Za-z0-9_]+$/ && !n {n = $1} END {print n}')
        search_ms=$(cd "$dir" && hyperfine -N -i -w 3 -r 30 --export-json "$work/h.json" \
            "$bin/cds-search --index $idx -n 5 $name" >/dev/null 2>&1 &&
            python3 -c "import json;print(round(json.load(open('$work/h.json'))['results'][0]['median']*1000,2))")
        cold_s=$(cut -d' ' -f1 "$work/cold" | median)
        rss=$(($(cut -d' ' -f2 "$work/cold" | median | cut -d. -f1) / 1024))
        edit_s=$(median < "$work/edit")
        noop_s=$(median < "$work/noop")
        watch_ms=$(median < "$work/watch")
        ctags_s=$(cut -d' ' -f1 "$work/ctags" | median)
        ctags_cpu=$(awk '{print $3 + $4}' "$work/ctags" | median)
        cpu_s=$(awk '{print $3 + $4}' "$work/cold" | median)
        size=$(du -sm "$idx/$(cat "$idx/CURRENT")" | cut -f1)
        printf '%-6s %9s %9s %9s %9s %8s %9s %9s %8s %9s %9s %8s %9s\n' "$l" "$lines" "$cold_s" "$cpu_s" "$rss" "$noop_s" "$edit_s" "$watch_ms" "$size" "$ctags_s" "$ctags_cpu" \
            "$(awk -v a="$cold_s" -v b="$ctags_s" 'BEGIN {printf "%.2fx", a / b}')" "$search_ms"
    done
done
echo "($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs; ctags -R indexes every language it knows in the tree)"
