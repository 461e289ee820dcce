#!/usr/bin/env python3
"""Localization benchmark: cds-loc on SWE-bench dev splits, scored like LocAgent.

For each instance of the split(s) this materializes its source tree at base_commit (the
Python files and ignore files only, from a git directory with full history) as a git work
tree at that commit (so cds-build reads the history before the issue), builds a cds
index (incrementally from the previous instance of the same repository, then drops the
tree), runs `cds-loc --json` on the issue text, writes the predictions in LocAgent's format,
scores them with the shared loc_metrics.py, and prints Acc@1/3/5 (file), Acc@5/10 (module,
function), a per-repository table, and the mean seconds per instance for building and
locating. Everything built is cached under $CDS_BENCH_CACHE, so a re-run only re-locates.

  bench/loc/run.py --git-root /work/.mirror                       (Lite dev split)
  bench/loc/run.py --git-root /work/.mirror --split lite --split py  (all 470 dev instances)
  bench/loc/run.py --split lite --split py --features             (dump features for fit.py)

--split takes a JSONL path or a name in $CDS_SHARED_BENCH (`lite` = swebench_lite_dev.jsonl,
`py` = swebench_py_dev.jsonl, `multi` = swebench_multilingual_dev.jsonl). Cross-validation
(by repository or by instance) is bench/loc/fit.py's job: it reads the features dumped here.

Git directories: --git OWNER/NAME=GITDIR (repeatable), or --git-root DIR holding one directory
per repository named `owner+name/repo` or `owner+name` (the layout `fetch` produces). The
SWE-bench forks `swe-bench/django__django`, `swe-bench/scikit-learn__scikit-learn` and
`swe-bench/matplotlib__matplotlib` are found under those names too; a multilingual instance
names its git history in gold_extra.mirror.

Environment: CDS_SHARED_BENCH (default ../shared/bench next to the repository) holds the
splits, snapshot.py and loc_metrics.py; CDS_BENCH_CACHE (default ~/.cache/cds/loc) receives
trees/ (transient), indexes/, features/ and runs/.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

FORKS = {
    "django/django": "swe-bench/django__django",
    "scikit-learn/scikit-learn": "swe-bench/scikit-learn__scikit-learn",
    "matplotlib/matplotlib": "swe-bench/matplotlib__matplotlib",
}
SPLITS = {
    "lite": "swebench_lite_dev.jsonl",
    "py": "swebench_py_dev.jsonl",
    "multi": "swebench_multilingual_dev.jsonl",
}
# Source files cds-build indexes, and the ignore files its walk honours.
SOURCE_EXT = (".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".java",
              ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++",
              ".rb", ".rake", ".gemspec", ".php")
IGNORE_FILES = (".gitignore", ".ignore", ".cdsignore")
# Files known by name: Ruby sources without an extension, and the project files resolvers read
# beside the sources (lib/lang/mod.rs's PROJECT_FILES: Go's module path, Rust crate names, JS
# path aliases and workspaces, C include paths, PHP's autoload maps).
PROJECT_FILES = ("Rakefile", "Gemfile", "go.mod", "Cargo.toml", "package.json", "tsconfig.json",
                 "jsconfig.json", "compile_commands.json", "composer.json")


def find_gitdir(root, repo):
    # GitHub names are case-insensitive (`reactivex/rxjava` is `ReactiveX/RxJava`).
    present = {d.lower(): d for d in os.listdir(root)} if os.path.isdir(root) else {}
    for name in (repo, FORKS.get(repo, repo)):
        flat = name.replace("/", "+")
        base = os.path.join(root, present.get(flat.lower(), flat))
        for cand in (os.path.join(base, "repo"), base):
            if os.path.isdir(cand) and (os.path.exists(os.path.join(cand, "HEAD"))
                                        or os.path.isdir(os.path.join(cand, ".git"))):
                return cand
    return None


def split_path(shared, s):
    if os.path.exists(s):
        return s
    return os.path.join(shared, SPLITS.get(s, s))


def load_rows(shared, splits):
    rows, seen = [], set()
    for s in splits:
        for line in open(split_path(shared, s)):
            if line.strip():
                r = json.loads(line)
                if r["instance_id"] not in seen:
                    seen.add(r["instance_id"])
                    rows.append(r)
    return rows


def git_repo_of(r):
    return ((r.get("gold_extra") or {}).get("mirror")) or r["repo"]


def snapshot(gitdir, commit, dest, shared_snapshot, split_file, iid, repo):
    """Writes the source files of COMMIT into DEST; falls back to the shared snapshot.py (blob
    by blob) when git archive fails (mirrors may lack a few large blobs)."""
    ls = subprocess.run(["git", f"--git-dir={gitdir}", "ls-tree", "-r", "--name-only", "-z", commit],
                        capture_output=True)
    if ls.returncode == 0:
        keep = [p for p in ls.stdout.decode("utf-8", "surrogateescape").split("\0")
                if p.endswith(SOURCE_EXT) or p.rsplit("/", 1)[-1] in IGNORE_FILES + PROJECT_FILES]
        tmp = dest + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        ok = True
        # Chunks keep the argument list bounded.
        for i in range(0, max(len(keep), 1), 2000):
            chunk = [p.encode("utf-8", "surrogateescape") for p in keep[i:i + 2000]]
            a = subprocess.Popen([b"nice", b"-n19", b"git", f"--git-dir={gitdir}".encode(), b"archive",
                                  commit.encode(), b"--", *chunk], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
            t = subprocess.run(["tar", "-x", "-C", tmp], stdin=a.stdout, stderr=subprocess.DEVNULL)
            a.stdout.close()
            ok = ok and a.wait() == 0 and t.returncode == 0
        if ok:
            os.rename(tmp, dest)
            return True
        shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run([sys.executable, shared_snapshot, "--instances", split_file, "--out",
                    os.path.dirname(dest), "--git", f"{repo}={gitdir}", "--only", iid],
                   check=False, stderr=subprocess.DEVNULL)
    return os.path.isdir(dest)


def materialize(a, rows, gitdirs, split_of):
    """Builds the missing indexes, repository by repository in date order, each from a copy of
    the previous one (cds-build then parses only the files that changed)."""
    trees = os.path.join(a.cache, "trees")
    indexes = os.path.join(a.cache, "indexes")
    os.makedirs(trees, exist_ok=True)
    os.makedirs(indexes, exist_ok=True)
    order = sorted(rows, key=lambda r: (git_repo_of(r), r.get("created_at") or "", r["instance_id"]))
    last, build_s, todo = {}, [], []
    for r in order:
        idx = os.path.join(indexes, r["instance_id"])
        if os.path.exists(os.path.join(idx, "CURRENT")) and not a.rebuild and not a.refresh:
            last[git_repo_of(r)] = idx
        else:
            todo.append(r)
    for i, r in enumerate(todo):
        iid, repo = r["instance_id"], git_repo_of(r)
        gitdir = gitdirs.get(repo)
        if not gitdir:
            continue
        tree = os.path.join(trees, iid)
        idx = os.path.join(indexes, iid)
        print(f"\rbuilding {i + 1}/{len(todo)} {iid:50}", end="", file=sys.stderr)
        if not os.path.isdir(tree):
            # A multilingual instance's JSONL carries the fixture for snapshot.py's fallback.
            if not snapshot(gitdir, r["base_commit"], tree, os.path.join(a.shared, "snapshot.py"),
                            split_of[iid], iid, r["repo"]):
                print(f"\n{iid}: no source tree at {r['base_commit']}", file=sys.stderr)
                continue
        with_history(tree, gitdir, r["base_commit"])
        t = time.time()
        if repo in last and not os.path.exists(idx):
            shutil.copytree(last[repo], idx + ".tmp", symlinks=True)
            os.rename(idx + ".tmp", idx)
        p = subprocess.run(["nice", "-n19", os.path.join(a.bin, "cds-build"), "-q", "--index", idx, tree],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"\n{iid}: cds-build failed: {p.stderr.strip()}", file=sys.stderr)
            continue
        build_s.append(time.time() - t)
        drop_old_generations(idx)
        last[repo] = idx
        if not a.keep_trees:
            shutil.rmtree(tree, ignore_errors=True)
    if todo:
        print(file=sys.stderr)
    return build_s


def with_history(tree, gitdir, commit):
    """Makes TREE a git work tree whose HEAD is COMMIT, borrowing GITDIR's objects (nothing is
    copied), so that cds-build reads the history before the issue as it would in a user's clone."""
    if os.path.exists(os.path.join(tree, ".git")):
        return
    subprocess.run(["git", "init", "-q", tree], check=True)
    objects = os.path.join(os.path.abspath(gitdir), "objects")
    with open(os.path.join(tree, ".git", "objects", "info", "alternates"), "w") as f:
        f.write(objects + "\n")
    subprocess.run(["git", "-C", tree, "update-ref", "HEAD", commit], check=True)


def drop_old_generations(idx):
    """A copied index keeps its previous generation after the build: only CURRENT's is needed."""
    cur = open(os.path.join(idx, "CURRENT")).read().strip()
    for g in os.listdir(idx):
        if g.startswith("gen-") and g != cur:
            shutil.rmtree(os.path.join(idx, g), ignore_errors=True)


def run_loc(a, r, extra):
    idx = os.path.join(a.cache, "indexes", r["instance_id"])
    t = time.time()
    p = subprocess.run([os.path.join(a.bin, "cds-loc"), "--index", idx] + extra + ["-"],
                       input=r["problem_statement"], capture_output=True, text=True)
    dt = time.time() - t
    if p.returncode not in (0, 1):
        print(f"{r['instance_id']}: cds-loc failed: {p.stderr.strip()}", file=sys.stderr)
        return {}, dt
    return (json.loads(p.stdout) if p.stdout.strip() else {}), dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", action="append", default=[],
                    help="JSONL file or lite/py/multi (repeatable; default lite)")
    ap.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    ap.add_argument("--git-root", default=os.environ.get("CDS_GIT_ROOT"))
    ap.add_argument("--shared", default=os.environ.get("CDS_SHARED_BENCH",
                                                      os.path.join(os.path.dirname(REPO), "shared", "bench")))
    ap.add_argument("--cache", default=os.environ.get("CDS_BENCH_CACHE", os.path.expanduser("~/.cache/cds/loc")))
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release"))
    ap.add_argument("--only", action="append", default=[], help="instance ids (repeatable)")
    ap.add_argument("--repo", action="append", default=[], help="only these repositories")
    ap.add_argument("--rebuild", action="store_true", help="rebuild every index")
    ap.add_argument("--refresh", action="store_true",
                    help="build every index again in place, over its own tree (what a newer cds adds "
                         "to an index it can still read, such as the history's messages)")
    ap.add_argument("--keep-trees", action="store_true", help="keep the source trees after indexing")
    ap.add_argument("--out", help="predictions file (default: CACHE/runs/preds.jsonl)")
    ap.add_argument("-n", type=int, default=10, help="locations per level")
    ap.add_argument("-j", type=int, default=2, help="cds-loc processes at once")
    ap.add_argument("--misses", action="store_true", help="list the instances whose file is missed")
    ap.add_argument("--loc-args", default="", help="extra arguments for cds-loc (e.g. '--tune model=0')")
    ap.add_argument("--features", action="store_true",
                    help="dump every candidate's features to CACHE/features/IID.json (for fit.py)")
    ap.add_argument("--build-only", action="store_true", help="only materialize and index")
    ap.add_argument("--no-build", action="store_true", help="use the indexes there are, build none")
    a = ap.parse_args()

    splits = a.split or ["lite"]
    rows = load_rows(a.shared, splits)
    split_of = {}
    for s in splits:
        for line in open(split_path(a.shared, s)):
            if line.strip():
                split_of.setdefault(json.loads(line)["instance_id"], split_path(a.shared, s))
    if a.only:
        rows = [r for r in rows if r["instance_id"] in a.only]
    if a.repo:
        rows = [r for r in rows if r["repo"] in a.repo]
    rows = [r for r in rows if not ("gold_extra" in r and (r["gold_extra"] or {}).get("mirror", 1) is None)]

    gitdirs = dict(x.split("=", 1) for x in a.git)
    if a.git_root:
        for r in rows:
            repo = git_repo_of(r)
            if repo not in gitdirs:
                g = find_gitdir(a.git_root, repo)
                if g:
                    gitdirs[repo] = g
    build_s = [] if a.no_build else materialize(a, rows, gitdirs, split_of)
    if a.build_only:
        return
    have = [r for r in rows if os.path.exists(os.path.join(a.cache, "indexes", r["instance_id"], "CURRENT"))]
    if len(have) < len(rows):
        print(f"skipped {len(rows) - len(have)} instances with no index (no git directory?)", file=sys.stderr)

    if a.features:
        feats = os.path.join(a.cache, "features")
        os.makedirs(feats, exist_ok=True)

        def dump(r):
            d, _ = run_loc(a, r, ["--features"] + a.loc_args.split())
            with open(os.path.join(feats, r["instance_id"] + ".json"), "w") as f:
                json.dump(d, f)
        with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
            for i, _ in enumerate(ex.map(dump, have)):
                print(f"\rfeatures {i + 1}/{len(have)}", end="", file=sys.stderr)
        print(f"\nfeatures: {feats}", file=sys.stderr)
        return

    runs = os.path.join(a.cache, "runs")
    os.makedirs(runs, exist_ok=True)
    preds_path = a.out or os.path.join(runs, "preds.jsonl")
    extra = ["--json", "-n", str(a.n)] + a.loc_args.split()
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        results = list(ex.map(lambda r: run_loc(a, r, extra), have))
    loc_s = [dt for _, dt in results]
    with open(preds_path, "w") as out:
        for r, (pred, _) in zip(have, results):
            out.write(json.dumps({
                "instance_id": r["instance_id"],
                "found_files": pred.get("found_files", []),
                "found_modules": pred.get("found_modules", []),
                "found_entities": pred.get("found_entities", []),
            }) + "\n")
    gold = os.path.join(runs, "gold.jsonl")
    with open(gold, "w") as f:
        for r in have:
            f.write(json.dumps({"instance_id": r["instance_id"], "gold": r["gold"]}) + "\n")
    metrics = os.path.join(a.shared, "loc_metrics.py")
    multilingual = any("language" in r for r in have)
    # SWE-bench Multilingual scores the file level on every instance (some patches change no
    # function), as its README says.
    all_files = ["--all-files"] if multilingual else []
    subprocess.run([sys.executable, metrics, "--gold", gold, "--pred", preds_path] + all_files, check=False)
    per_repo(have, preds_path, a.misses)
    if multilingual:
        per_language(have, preds_path)
    if build_s:
        print(f"\nbuild: {sum(build_s) / len(build_s):.2f} s per instance (mean of {len(build_s)} builds)")
    if loc_s:
        print(f"locate: {sum(loc_s) / len(loc_s):.3f} s per instance (mean of {len(loc_s)}, whole process, -j {a.j})")
    print(f"predictions: {preds_path}")


def acc(gold, pred, k):
    """LocAgent's Acc@k: the first k predictions hold min(k, |gold|) gold items."""
    if not gold:
        return None
    hits = sum(1 for p in pred[:k] if p in gold)
    return 1.0 if hits >= min(k, len(gold)) else 0.0


def norm_entity(e):
    return e[: -len(".__init__")] if e.endswith(".__init__") else e


def per_repo(rows, preds_path, show_misses):
    preds = {}
    for line in open(preds_path):
        p = json.loads(line)
        preds[p["instance_id"]] = p
    table = collections.defaultdict(lambda: collections.defaultdict(list))
    misses = []
    for r in rows:
        g = r["gold"]
        if not g.get("functions"):
            continue  # LocAgent skips instances with no edited function, at every level
        p = preds.get(r["instance_id"], {})
        files, mods = p.get("found_files", []), p.get("found_modules", [])
        ents = [norm_entity(e) for e in p.get("found_entities", [])]
        t = table[r["repo"]]
        t["n"].append(1)
        t["f1"].append(acc(g["files"], files, 1))
        t["f5"].append(acc(g["files"], files, 5))
        t["m10"].append(acc(g["modules"], mods, 10))
        t["fn10"].append(acc(g["functions"], ents, 10))
        if not acc(g["files"], files, 5):
            misses.append((r["instance_id"], g["files"], files[:5]))
    print(f"\n{'repository':28} {'N':>3} {'file@1':>7} {'file@5':>7} {'mod@10':>7} {'fn@10':>7}")
    for repo in sorted(table):
        t = table[repo]

        def m(k):
            v = [x for x in t[k] if x is not None]
            return f"{sum(v) / len(v):.3f}" if v else "-"
        print(f"{repo:28} {len(t['n']):>3} {m('f1'):>7} {m('f5'):>7} {m('m10'):>7} {m('fn10'):>7}")
    if show_misses:
        print("\nfile misses at 5:")
        for iid, gold, got in misses:
            print(f"  {iid}: gold {gold} got {got}")


def per_language(rows, preds_path):
    """Acc@k per language: files on every instance, modules and functions on those whose
    patch changes a function (the multilingual protocol)."""
    preds = {}
    for line in open(preds_path):
        p = json.loads(line)
        preds[p["instance_id"]] = p
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        g, p = r["gold"], preds.get(r["instance_id"], {})
        files, mods = p.get("found_files", []), p.get("found_modules", [])
        ents = [norm_entity(e) for e in p.get("found_entities", [])]
        for lang in (r.get("language", "Python"), "all"):
            t = by[lang]
            if g.get("files"):
                for k in (1, 3, 5):
                    t[f"f{k}"].append(acc(g["files"], files, k))
            if g.get("functions"):
                t["n"].append(1)
                for k in (5, 10):
                    t[f"m{k}"].append(acc(g["modules"], mods, k))
                    t[f"fn{k}"].append(acc(g["functions"], ents, k))
    cols = ["f1", "f3", "f5", "m5", "m10", "fn5", "fn10"]
    print(f"\n{'language':24} {'files':>5} {'N':>3} " + " ".join(f"{c:>6}" for c in
          ["file@1", "file@3", "file@5", "mod@5", "mod@10", "fn@5", "fn@10"]))
    for lang in sorted(by, key=lambda x: (x == "all", x)):
        t = by[lang]

        def m(k):
            v = [x for x in t[k] if x is not None]
            return f"{sum(v) / len(v):.3f}" if v else "-"
        print(f"{lang:24} {len(t['f1']):>5} {len(t['n']):>3} " + " ".join(f"{m(c):>6}" for c in cols))


if __name__ == "__main__":
    main()
