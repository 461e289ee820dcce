# Shared by the bench/*.sh scripts (sourced, not run): tool installs and the Django corpus.
#
# Sets `here` (the repository), `cache`, `bin` (release binaries, honouring CARGO_TARGET_DIR)
# and defines need, django_corpus, built and watch_latencies.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CDS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cds/bench}
bin=${CARGO_TARGET_DIR:-$here/target}/release

# need COMMAND PACKAGE: installs the Debian package when the command is missing.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    echo "installing $2" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null
}

# django_corpus [DIR]: prints DIR, or the Django 4.2 sdist unpacked in the cache (downloaded
# with pip on first use; never copied into the repository).
django_corpus() {
    if [ -n "${1:-}" ]; then
        echo "$1"
        return
    fi
    if [ ! -d "$cache/Django-4.2" ]; then
        mkdir -p "$cache"
        pip download --no-deps --no-binary :all: django==4.2 -d "$cache" >/dev/null
        tar xzf "$cache"/Django-4.2.tar.gz -C "$cache"
    fi
    echo "$cache/Django-4.2"
}

# built BIN...: builds the release binaries unless all of them are there.
built() {
    for b in "$@"; do
        [ -x "$bin/$b" ] || { (cd "$here" && cargo build --release --bins); return; }
    done
}

# watch_latencies IDX CORPUS TARGET RUNS LINE [cds-build options...]: runs `cds-build --watch` on
# CORPUS into IDX (the executable $exe when set, else $bin/cds-build) and prints, one line per
# run, the milliseconds from appending `LINE i`'s output to TARGET to CURRENT naming a new
# generation. TARGET is left edited (the caller restores it).
watch_latencies() {
    local idx=$1 corpus=$2 target=$3 runs=$4 line=$5 log watcher old now start end i
    shift 5
    log=$(mktemp)
    "${exe:-$bin/cds-build}" -q --watch "$@" --index "$idx" "$corpus" 2>"$log" &
    watcher=$!
    for _ in $(seq 300); do grep -q . "$log" && break; [ -f "$idx/CURRENT" ] && break; sleep 0.05; done
    sleep 1
    # The poll uses only shell builtins (read, $EPOCHREALTIME, a read timeout as the sleep): a
    # process started per poll would take the CPU the watcher needs and lengthen what is measured.
    exec {never}<> <(:)
    for i in $(seq "$runs"); do
        read -r old < "$idx/CURRENT" || true
        start=${EPOCHREALTIME/[.,]/}
        "$line" "$i" >> "$target"
        for _ in $(seq 20000); do
            read -r now < "$idx/CURRENT" || true
            [ "$now" != "$old" ] && break
            read -t 0.001 -u "$never" _ || true
        done
        end=${EPOCHREALTIME/[.,]/}
        echo "$(( (end - start) / 1000 ))"
        sleep 0.5
    done
    exec {never}>&-
    kill -TERM "$watcher"
    wait "$watcher" || true
    rm -f "$log"
}

# before_bin REV: the path of cds-build built from revision REV, built once into the bench cache
# in its own target directory (or $BEFORE_BIN when set).
before_bin() {
    if [ -n "${BEFORE_BIN:-}" ]; then
        echo "$BEFORE_BIN"
        return
    fi
    local rev src
    rev=$(cd "$here" && git rev-parse "$1")
    if [ ! -x "$cache/before-$rev/release/cds-build" ]; then
        src=$cache/src-$rev
        rm -rf "$src" && mkdir -p "$src"
        (cd "$here" && git archive "$rev") | tar x -C "$src"
        (cd "$src" && CARGO_TARGET_DIR=$cache/before-$rev nice cargo build --release --bin cds-build) >&2
    fi
    echo "$cache/before-$rev/release/cds-build"
}
