#!/usr/bin/env python3
"""Localization benchmark: cds-loc on SWE-bench Lite (dev split), scored like LocAgent.

For each instance of the split this materializes its source tree at base_commit (with the shared
snapshot.py, cached outside the repository), builds a cds index, runs `cds-loc --json` on the
issue text, writes the predictions in LocAgent's format, scores them with the shared
loc_metrics.py, and prints Acc@1/3/5 (file), Acc@5/10 (module, function), a per-repository
table, and the mean seconds per instance for building and for locating.

  bench/loc/run.py --git-root /path/to/mirrors        (make bench-loc GIT_ROOT=...)

Git directories: --git OWNER/NAME=GITDIR (repeatable), or --git-root DIR holding one directory
per repository named `owner+name/repo` or `owner+name` (a bare or normal git directory with full
history). The SWE-bench forks `swe-bench/django__django`, `swe-bench/scikit-learn__scikit-learn`
and `swe-bench/matplotlib__matplotlib` are found under those names too.

Environment: CDS_SHARED_BENCH (default ../shared/bench next to the repository) holds
swebench_lite_dev.jsonl, snapshot.py and loc_metrics.py; CDS_BENCH_CACHE (default
~/.cache/cds/loc) receives trees/, indexes/ and runs/.
"""
import argparse
import collections
import json
import os
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


def find_gitdir(root, repo):
    for name in (repo, FORKS.get(repo, repo)):
        base = os.path.join(root, name.replace("/", "+"))
        for cand in (os.path.join(base, "repo"), base):
            if os.path.isdir(cand) and (os.path.exists(os.path.join(cand, "HEAD"))
                                        or os.path.isdir(os.path.join(cand, ".git"))):
                return cand
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    ap.add_argument("--git-root", default=os.environ.get("CDS_GIT_ROOT"))
    ap.add_argument("--shared", default=os.environ.get("CDS_SHARED_BENCH",
                                                      os.path.join(os.path.dirname(REPO), "shared", "bench")))
    ap.add_argument("--cache", default=os.environ.get("CDS_BENCH_CACHE", os.path.expanduser("~/.cache/cds/loc")))
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release"))
    ap.add_argument("--only", action="append", default=[], help="instance ids (repeatable)")
    ap.add_argument("--repo", action="append", default=[], help="only these repositories")
    ap.add_argument("--rebuild", action="store_true", help="rebuild every index")
    ap.add_argument("--out", help="predictions file (default: CACHE/runs/preds.jsonl)")
    ap.add_argument("-n", type=int, default=10, help="locations per level")
    ap.add_argument("--misses", action="store_true", help="list the instances whose file is missed")
    ap.add_argument("--loc-args", default="", help="extra arguments for cds-loc")
    a = ap.parse_args()

    dev = os.path.join(a.shared, "swebench_lite_dev.jsonl")
    rows = [json.loads(line) for line in open(dev) if line.strip()]
    if a.only:
        rows = [r for r in rows if r["instance_id"] in a.only]
    if a.repo:
        rows = [r for r in rows if r["repo"] in a.repo]

    gitdirs = dict(x.split("=", 1) for x in a.git)
    if a.git_root:
        for r in rows:
            if r["repo"] not in gitdirs:
                g = find_gitdir(a.git_root, r["repo"])
                if g:
                    gitdirs[r["repo"]] = g
    trees = os.path.join(a.cache, "trees")
    indexes = os.path.join(a.cache, "indexes")
    runs = os.path.join(a.cache, "runs")
    for d in (trees, indexes, runs):
        os.makedirs(d, exist_ok=True)

    missing = [r["instance_id"] for r in rows if not os.path.isdir(os.path.join(trees, r["instance_id"]))]
    if missing:
        args = [sys.executable, os.path.join(a.shared, "snapshot.py"), "--instances", dev, "--out", trees]
        for repo, g in sorted(gitdirs.items()):
            args += ["--git", f"{repo}={g}"]
        for iid in missing:
            args += ["--only", iid]
        print(f"materializing {len(missing)} source trees into {trees}", file=sys.stderr)
        subprocess.run(args, check=False, stderr=subprocess.DEVNULL)

    preds_path = a.out or os.path.join(runs, "preds.jsonl")
    build_s, loc_s = [], []
    skipped = []
    with open(preds_path, "w") as out:
        for i, r in enumerate(rows):
            iid = r["instance_id"]
            tree = os.path.join(trees, iid)
            if not os.path.isdir(tree):
                skipped.append(iid)
                continue
            idx = os.path.join(indexes, iid)
            if a.rebuild or not os.path.exists(os.path.join(idx, "CURRENT")):
                t = time.time()
                subprocess.run([os.path.join(a.bin, "cds-build"), "-q", "--index", idx, tree], check=True)
                build_s.append(time.time() - t)
            issue = os.path.join(runs, "issue.md")
            with open(issue, "w") as f:
                f.write(r["problem_statement"])
            t = time.time()
            p = subprocess.run([os.path.join(a.bin, "cds-loc"), "--json", "-n", str(a.n), "--index", idx]
                               + a.loc_args.split() + [issue], capture_output=True, text=True)
            loc_s.append(time.time() - t)
            if p.returncode not in (0, 1):
                print(f"{iid}: cds-loc failed: {p.stderr.strip()}", file=sys.stderr)
                pred = {}
            else:
                pred = json.loads(p.stdout) if p.stdout.strip() else {}
            out.write(json.dumps({
                "instance_id": iid,
                "found_files": pred.get("found_files", []),
                "found_modules": pred.get("found_modules", []),
                "found_entities": pred.get("found_entities", []),
            }) + "\n")
            print(f"\r{i + 1}/{len(rows)} {iid:40}", end="", file=sys.stderr)
    print(file=sys.stderr)
    if skipped:
        print(f"skipped {len(skipped)} instances with no source tree (no git directory?)", file=sys.stderr)

    metrics = os.path.join(a.shared, "loc_metrics.py")
    subprocess.run([sys.executable, metrics, "--gold", dev, "--pred", preds_path], check=False)
    per_repo(rows, preds_path, a.misses)
    if build_s:
        print(f"\nbuild: {sum(build_s) / len(build_s):.2f} s per instance (mean of {len(build_s)} builds)")
    if loc_s:
        print(f"locate: {sum(loc_s) / len(loc_s):.3f} s per instance (mean of {len(loc_s)}, whole process)")
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
        t["f5"].append(acc(g["files"], files, 5))
        t["m10"].append(acc(g["modules"], mods, 10))
        t["fn10"].append(acc(g["functions"], ents, 10))
        if not acc(g["files"], files, 5):
            misses.append((r["instance_id"], g["files"], files[:5]))
    print(f"\n{'repository':28} {'N':>3} {'file@5':>7} {'mod@10':>7} {'fn@10':>7}")
    for repo in sorted(table):
        t = table[repo]

        def m(k):
            v = [x for x in t[k] if x is not None]
            return f"{sum(v) / len(v):.3f}" if v else "-"
        print(f"{repo:28} {len(t['n']):>3} {m('f5'):>7} {m('m10'):>7} {m('fn10'):>7}")
    if show_misses:
        print("\nfile misses at 5:")
        for iid, gold, got in misses:
            print(f"  {iid}: gold {gold} got {got}")


if __name__ == "__main__":
    main()
