# Shared by the bench/*.sh scripts (sourced, not run): tool installs and the Django corpus.
#
# Sets `here` (the repository), `cache`, `bin` (release binaries, honouring CARGO_TARGET_DIR)
# and defines need, django_corpus and built.

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
