#!/usr/bin/env python3
"""Fit cds-loc's ranking model, cross-validate it, and write lib/loc/weights.rs.

Reads the candidates and features `run.py --features` dumped (CACHE/features/IID.json, from
`cds-loc --features`) and the gold of the split(s). Each level is a linear scorer fitted with
a listwise loss (softmax cross-entropy over an issue's candidates, the gold ones the target,
L2-regularised, L-BFGS), in the order cds-loc applies them: files, then functions (whose
features include their file's rank under the file model), then modules (their file's rank and
their best function's score). Those derived features are recomputed here exactly as
lib/loc/mod.rs computes them.

  bench/loc/fit.py --split lite --split py --cv repo       # leave one repository out
  bench/loc/fit.py --split lite --split py --cv 5          # 5 folds by instance
  bench/loc/fit.py --split lite --split py --cv 5 --seeds 8  # and the mean of 8 fold shuffles
  bench/loc/fit.py --split lite --split py --ablate        # each signal's worth, cross-validated
  bench/loc/fit.py --split lite --split py --write         # fit on all, write lib/loc/weights.rs

Every figure printed for a fitted setting comes from folds the weights were not fitted on; the
predictions of the held-out folds are written in LocAgent's format and scored by the shared
loc_metrics.py too. Needs numpy and scipy.
"""
import argparse
import collections
import json
import math
import os
import random
import subprocess
import sys

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # small problems: threads only contend
import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import run  # noqa: E402

GAP_FLOOR = -20.0
FILE_CANDIDATES = 100
LEVELS = ("files", "functions", "modules")
GOLD_KEY = {"files": "files", "functions": "functions", "modules": "modules"}
# Feature groups for the ablation: each is dropped from every level where it exists.
GROUPS = {
    "hand-set score": ["heur", "heur_lrank"],
    "name matches": ["exact", "fname", "qual", "name", "own_name", "parent_name", "best_name",
                     "n_named", "frame"],
    "BM25": ["bm25", "bm_lrank", "best_fn_bm", "best_cls_bm", "parent_bm"],
    "code-term BM25": ["code_bm"],
    "path evidence": ["path"],
    "graph": ["graph", "n_callers"],
    "class to method": ["class"],
    "file rank (levels below)": ["file_lrank", "file_gap", "file_top1"],
    "function score (modules)": ["fn_gap"],
    "within-file rank": ["in_file"],
    "entity shape priors": ["method", "dunder", "private", "size", "ctor", "is_class", "package",
                            "depth", "aux"],
    "entity counts": ["best_ent", "rest_ent", "n_ev", "best_mem"],
    "test names": ["test_ptr"],
    "history": ["age", "churn", "msg_bm"],
    "relations to the best files and functions": ["imp_top", "call_top", "importers", "nbr_top", "sib_top",
                                                  "file_rel"],
}


def norm_entity(e):
    return e[: -len(".__init__")] if e.endswith(".__init__") else e


class Inst:
    """One issue's candidates: per level the IDs, file and module IDs, and features."""

    def __init__(self, row, dump):
        self.iid = row["instance_id"]
        self.repo = row["repo"]
        self.gold = row["gold"]
        self.lv = {}
        for lvl in LEVELS:
            d = dump.get(lvl) or {"names": [], "ids": [], "file": [], "module": [], "x": []}
            x = np.array(d["x"], dtype=np.float64).reshape(len(d["ids"]), -1) if d["ids"] else \
                np.zeros((0, len(d.get("names", [])) or 1))
            gold = set(self.gold[GOLD_KEY[lvl]])
            ids = d["ids"]
            key = [norm_entity(i) for i in ids] if lvl == "functions" else ids
            y = np.array([1.0 if k in gold else 0.0 for k in key])
            self.lv[lvl] = {"names": d.get("names", []), "ids": ids, "file": d["file"], "module": d["module"],
                            "x": x, "y": y}

    @property
    def scored(self):
        return bool(self.gold.get("functions"))


def names_of(insts, lvl):
    c = collections.Counter(tuple(i.lv[lvl]["names"]) for i in insts if i.lv[lvl]["names"])
    return list(c.most_common(1)[0][0]) if c else []


def order(ids, s):
    """Indices best first, ties by ID (as lib/loc/mod.rs sorts)."""
    return sorted(range(len(ids)), key=lambda i: (-s[i], ids[i].encode()))


def derive(inst, names, lvl, file_s, fn_s):
    """Recomputes the features that depend on the model's scores of the level above."""
    L = inst.lv[lvl]
    x = L["x"].copy()
    if lvl in ("functions", "modules") and file_s is not None:
        F = inst.lv["files"]
        o = order(F["ids"], file_s)
        best = file_s[o[0]] if o else 0.0
        rank = {F["ids"][i]: (r, file_s[i]) for r, i in enumerate(o)}
        fl, fg, ft = names.index("file_lrank"), names.index("file_gap"), names.index("file_top1")
        for j, f in enumerate(L["file"]):
            if f in rank:
                r, s = rank[f]
                x[j, fl], x[j, fg], x[j, ft] = math.log(1 + r), max(s - best, GAP_FLOOR), float(r == 0)
            else:
                x[j, fl], x[j, fg], x[j, ft] = math.log(1 + FILE_CANDIDATES), GAP_FLOOR, 0.0
    if lvl == "modules" and fn_s is not None and "fn_gap" in names:
        E = inst.lv["functions"]
        best = collections.defaultdict(lambda: -math.inf)
        for m, s in zip(E["module"], fn_s):
            best[m] = max(best[m], s)
        top = max(fn_s) if len(fn_s) else 0.0
        g = names.index("fn_gap")
        for j, m in enumerate(L["ids"]):
            x[j, g] = max(best[m] - top, GAP_FLOOR) if m in best else GAP_FLOOR
    return x


def fit_level(xs, ys, mask, l2):
    """Listwise softmax cross-entropy; xs, ys per issue. Returns raw-scale weights."""
    data = [(x[:, mask], y) for x, y in zip(xs, ys) if len(y) and y.sum() > 0]
    d = int(mask.sum())
    if not data:
        return np.zeros(len(mask))
    X = np.vstack([x for x, _ in data])
    T = np.concatenate([y / y.sum() for _, y in data])
    starts = np.cumsum([0] + [len(y) for _, y in data])[:-1]
    group = np.repeat(np.arange(len(data)), [len(y) for _, y in data])
    mu, sd = X.mean(0), X.std(0)
    sd[sd < 1e-9] = 1.0
    X = (X - mu) / sd
    n = len(data)

    def f(w):
        s = X @ w
        m = np.maximum.reduceat(s, starts)[group]
        e = np.exp(s - m)
        z = np.add.reduceat(e, starts)[group]
        p = e / z
        loss = -(T * (s - m - np.log(z))).sum()
        grad = X.T @ (p - T)
        return loss / n + l2 * (w @ w), grad / n + 2 * l2 * w

    r = minimize(f, np.zeros(d), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    w = np.zeros(len(mask))
    w[mask] = r.x / sd
    return w


class Linear:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return x @ self.w if len(x) else np.zeros(0)


class Trees:
    """Gradient-boosted trees (LightGBM lambdarank), for comparison with the linear model."""

    def __init__(self, xs, ys, mask, params):
        import lightgbm as lgb
        data = [(x, y) for x, y in zip(xs, ys) if len(y) and y.sum() > 0]
        X = np.vstack([x for x, _ in data])
        y = np.concatenate([y for _, y in data])
        self.mask = mask
        X = X.copy()
        X[:, ~mask] = 0
        self.b = lgb.train(dict(objective="lambdarank", verbosity=-1, num_threads=1, **params),
                           lgb.Dataset(X, y, group=[len(y) for _, y in data]),
                           num_boost_round=params.pop("rounds", 100) if False else 100)

    def __call__(self, x):
        if not len(x):
            return np.zeros(0)
        x = x.copy()
        x[:, ~self.mask] = 0
        return self.b.predict(x, num_threads=1)


class Model:
    def __init__(self, names, drop=(), l2=1e-3, kind="linear"):
        self.names = names
        self.drop = set(drop)
        self.l2 = l2
        self.kind = kind
        self.w = {}
        self.f = {}

    def level(self, lvl, xs, ys):
        if self.kind == "trees":
            self.f[lvl] = Trees(xs, ys, self.mask(lvl),
                                dict(learning_rate=0.05, num_leaves=7, min_data_in_leaf=20,
                                     lambdarank_truncation_level=20))
        else:
            self.w[lvl] = fit_level(xs, ys, self.mask(lvl), self.l2)
            self.f[lvl] = Linear(self.w[lvl])

    def mask(self, lvl):
        return np.array([n not in self.drop for n in self.names[lvl]], dtype=bool)

    def fit(self, insts):
        train = [i for i in insts if i.scored or True]
        xs = [i.lv["files"]["x"] for i in train]
        self.level("files", xs, [i.lv["files"]["y"] for i in train])
        fs = [self.f["files"](x) for x in xs]
        xe = [derive(i, self.names["functions"], "functions", s, None) for i, s in zip(train, fs)]
        self.level("functions", xe, [i.lv["functions"]["y"] for i in train])
        es = [self.f["functions"](x) for x in xe]
        xm = [derive(i, self.names["modules"], "modules", s, e) for i, s, e in zip(train, fs, es)]
        self.level("modules", xm, [i.lv["modules"]["y"] for i in train])
        return self

    def predict(self, inst, n=10):
        F = inst.lv["files"]
        fs = self.f["files"](F["x"])
        xe = derive(inst, self.names["functions"], "functions", fs, None)
        es = self.f["functions"](xe)
        xm = derive(inst, self.names["modules"], "modules", fs, es)
        ms = self.f["modules"](xm)
        E, M = inst.lv["functions"], inst.lv["modules"]
        return {
            "instance_id": inst.iid,
            "found_files": [F["ids"][i] for i in order(F["ids"], fs)[:n]],
            "found_modules": [M["ids"][i] for i in order(M["ids"], ms)[:n]],
            "found_entities": [E["ids"][i] for i in order(E["ids"], es)[:n]],
        }


class Heuristic:
    """The hand-set ranking (the `heur` feature alone), for comparison."""

    def __init__(self, names):
        self.names = names

    def fit(self, insts):
        return self

    def predict(self, inst, n=10):
        out = {"instance_id": inst.iid}
        for lvl, key in zip(LEVELS, ("found_files", "found_entities", "found_modules")):
            L = inst.lv[lvl]
            s = L["x"][:, 0] if len(L["ids"]) else np.zeros(0)
            out[key] = [L["ids"][i] for i in order(L["ids"], s)[:n]]
        return out


def acc(gold, pred, k):
    if not gold:
        return None
    hits = sum(1 for p in pred[:k] if p in gold)
    return 1.0 if hits >= min(k, len(gold)) else 0.0


KS = [("file", "files", "found_files", (1, 3, 5)), ("module", "modules", "found_modules", (5, 10)),
      ("function", "functions", "found_entities", (5, 10))]


def score(insts, preds):
    """LocAgent's Acc@k over the scored instances (those with function gold)."""
    res = collections.defaultdict(list)
    for i in insts:
        if not i.scored:
            continue
        p = preds[i.iid]
        for lvl, g, k, ks in KS:
            pr = [norm_entity(e) for e in p[k]] if lvl == "function" else p[k]
            for kk in ks:
                res[f"{lvl}@{kk}"].append(acc(i.gold[g], pr, kk))
    return {k: sum(v) / len(v) for k, v in res.items()}


def folds_of(insts, cv, seed=0):
    if cv == "repo":
        by = collections.defaultdict(list)
        for i in insts:
            by[i.repo].append(i)
        return list(by.values())
    k = int(cv)
    ids = sorted(insts, key=lambda i: i.iid)
    random.Random(seed).shuffle(ids)
    return [ids[j::k] for j in range(k)]


def cross_validate(insts, names, cv, make, models=None, seed=0):
    preds = {}
    for test in folds_of(insts, cv, seed):
        tid = {i.iid for i in test}
        m = make(names).fit([i for i in insts if i.iid not in tid])
        for i in test:
            preds[i.iid] = m.predict(i)
            if models is not None:
                models[i.iid] = m
    return preds


def table_line(label, s):
    cols = ["file@1", "file@3", "file@5", "module@5", "module@10", "function@5", "function@10"]
    return f"| {label} | " + " | ".join(f"{s.get(c, 0):.3f}" for c in cols) + " |"


def seeds_line(label, insts, names, cv, make, seeds):
    """The mean of the table over `seeds` shuffles of the instance folds, with each column's
    range: what one shuffle gives moves by a few instances with the folds alone."""
    runs = [score(insts, cross_validate(insts, names, cv, make, seed=k)) for k in range(seeds)]
    cols = ["file@1", "file@3", "file@5", "module@5", "module@10", "function@5", "function@10"]
    cell = lambda c: (f"{sum(r[c] for r in runs) / len(runs):.3f} "  # noqa: E731
                      f"({min(r[c] for r in runs):.3f}-{max(r[c] for r in runs):.3f})")
    return f"| {label}, mean of {seeds} shuffles | " + " | ".join(cell(c) for c in cols) + " |"


def per_repo(insts, preds):
    by = collections.defaultdict(list)
    for i in insts:
        by[i.repo].append(i)
    print("\n| repository | N | file@1 | file@5 | module@10 | function@10 |\n| --- | --- | --- | --- | --- | --- |")
    for repo in sorted(by, key=lambda r: -len(by[r])):
        s = score(by[repo], preds)
        n = sum(1 for i in by[repo] if i.scored)
        print(f"| {repo} | {n} | {s['file@1']:.3f} | {s['file@5']:.3f} | {s['module@10']:.3f} | {s['function@10']:.3f} |")


def misses(insts, model_of, split_ids=None):
    """Error analysis of held-out rankings: file@5 and function@10 misses by where gold sat."""
    def bucket(r):
        return ("not a candidate" if r is None else "ranked 1-5" if r < 5 else "ranked 6-10" if r < 10
                else "ranked 11-20" if r < 20 else "ranked 21-50" if r < 50 else "ranked >50")
    fc, ec = collections.Counter(), collections.Counter()
    n = 0
    for i in insts:
        if not i.scored or (split_ids is not None and i.iid not in split_ids):
            continue
        n += 1
        p = model_of[i.iid].predict(i, n=10 ** 6)
        ff = p["found_files"]
        pos = {f: k for k, f in enumerate(ff)}
        gold = list(dict.fromkeys(i.gold["files"]))
        if acc(gold, ff, 5) == 0:
            worst = sorted(pos.get(g, 10 ** 9) for g in gold)[:min(5, len(gold))][-1]
            kind = "one gold file" if len(gold) == 1 else \
                "several gold files, none in the first 5" if not any(pos.get(g, 99) < 5 for g in gold) else \
                "several gold files, one found, another"
            fc[f"{kind}: {bucket(None if worst >= 10 ** 9 else worst)}"] += 1
        ee = [norm_entity(e) for e in p["found_entities"]]
        epos = {}
        for k, e in enumerate(ee):
            epos.setdefault(e, k)
        gf = set(i.gold["functions"])
        if acc(list(gf), ee, 10) == 0:
            miss = [g for g in gf if epos.get(g, 10 ** 9) >= 10]
            gfiles = {g.split(":")[0] for g in miss}
            if any(g not in epos for g in miss):
                kind = "a gold function not a candidate"
            elif not gfiles <= set(ff[:5]):
                kind = "a missed function's file not in the first 5 files"
            elif len(gf) == 1:
                kind = "one gold function, its file in the first 5"
            else:
                kind = "several gold functions, their files in the first 5"
            worst = sorted(epos.get(g, 10 ** 9) for g in gf)[:min(10, len(gf))][-1]
            ec[kind if "not a candidate" in kind else f"{kind}: {bucket(worst)}"] += 1
    print(f"\nmisses of {n} scored instances (held out)")
    for title, c in (("file@5", fc), ("function@10", ec)):
        print(f"\n| {title} misses: where the gold sat | N |\n| --- | --- |")
        for k, v in sorted(c.items()):
            print(f"| {k} | {v} |")
        print(f"| all | {sum(c.values())} |")


def write_weights(path, model, names, cmd):
    lines = [
        "//! Generated by bench/loc/fit.py; do not edit. Refit with:",
        "//!",
        "//! ```text",
        f"//! {cmd}",
        "//! ```",
        "//!",
        "//! (after `bench/loc/run.py ... --features` has dumped the features of the dev splits).",
        "//! One linear weight per feature of lib/loc/model.rs, in its order, on the raw feature",
        "//! scale; a level's score is the dot product.",
        "#![allow(clippy::excessive_precision, clippy::unreadable_literal)]",
        "use super::model::{NE, NF, NM};",
    ]
    for const, lvl, n in (("FILE", "files", "NF"), ("FUNCTION", "functions", "NE"), ("MODULE", "modules", "NM")):
        lines.append(f"/// Weights of the {lvl[:-1]} features.")
        lines.append(f"pub const {const}: [f32; {n}] = [")
        for nm, w in zip(names[lvl], model.w[lvl]):
            lines.append(f"    {float(w):.6e}, // {nm}")
        lines.append("];")
    open(path, "w").write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", action="append", default=[])
    ap.add_argument("--shared", default=os.environ.get("CDS_SHARED_BENCH",
                                                      os.path.join(os.path.dirname(REPO), "shared", "bench")))
    ap.add_argument("--cache", default=os.environ.get("CDS_BENCH_CACHE", os.path.expanduser("~/.cache/cds/loc")))
    ap.add_argument("--cv", default="repo", help="'repo' (leave one repository out) or K (folds by instance)")
    ap.add_argument("--seeds", type=int, default=1, metavar="N",
                    help="with --cv K: also the mean (and range) over N shuffles of the folds")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--model", default="linear", choices=["linear", "trees"],
                    help="linear (what cds-loc runs) or trees (LightGBM, for comparison only)")
    ap.add_argument("--drop", action="append", default=[],
                    help="features to leave out (comma-separated; repeatable)")
    ap.add_argument("--ablate", action="store_true", help="cross-validate without each feature group")
    ap.add_argument("--write", action="store_true", help="fit on every instance and write lib/loc/weights.rs")
    ap.add_argument("--parity", type=int, default=0, metavar="N",
                    help="check that cds-loc (built with the written weights) ranks N instances as this script does")
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release"))
    ap.add_argument("--misses", default=None, metavar="SPLIT",
                    help="list the held-out file@5 and function@10 misses by where the gold sat (SPLIT or 'all')")
    ap.add_argument("--out", help="write the held-out predictions (LocAgent format) here")
    a = ap.parse_args()

    splits = a.split or ["lite", "py"]
    rows = run.load_rows(a.shared, splits)
    feats = os.path.join(a.cache, "features")
    insts = []
    for r in rows:
        p = os.path.join(feats, r["instance_id"] + ".json")
        if os.path.exists(p):
            insts.append(Inst(r, json.load(open(p))))
    print(f"{len(insts)} instances with features ({sum(i.scored for i in insts)} scored) of {len(rows)}",
          file=sys.stderr)
    names = {lvl: names_of(insts, lvl) for lvl in LEVELS}
    # Dumps of another cds-loc (other features) are stale: left out, with a note.
    stale = [i for i in insts if any(i.lv[lvl]["names"] and i.lv[lvl]["names"] != names[lvl] for lvl in LEVELS)]
    if stale:
        print(f"{len(stale)} stale dumps left out (re-run run.py --features)", file=sys.stderr)
        insts = [i for i in insts if i not in stale]
    # How often every gold item of a level is among its candidates (the ceiling of any model).
    ceil = {lvl: sum(1 for i in insts if i.scored and i.lv[lvl]["y"].sum() >= len(set(i.gold[GOLD_KEY[lvl]])))
            / max(1, sum(i.scored for i in insts)) for lvl in LEVELS}
    print("candidates hold all gold: " + ", ".join(f"{k} {v:.3f}" for k, v in ceil.items()), file=sys.stderr)
    drop = [d for arg in a.drop for d in arg.split(",") if d]
    make = lambda nm: Model(nm, drop, a.l2, a.model)  # noqa: E731

    if a.parity:
        m = make(names).fit(insts)
        rows_by = {r["instance_id"]: r for r in rows}
        same = 0
        for inst in insts[:a.parity]:
            p = m.predict(inst)
            out = subprocess.run([os.path.join(a.bin, "cds-loc"), "--json", "--index",
                                  os.path.join(a.cache, "indexes", inst.iid), "-"],
                                 input=rows_by[inst.iid]["problem_statement"], capture_output=True, text=True)
            q = json.loads(out.stdout)
            diff = [k for k in ("found_files", "found_modules", "found_entities") if p[k] != q[k]]
            same += not diff
            if diff:
                print(f"{inst.iid}: differs in {diff}: {p[diff[0]][:5]} vs {q[diff[0]][:5]}")
        print(f"parity: {same}/{min(a.parity, len(insts))} identical")
        return

    if a.write:
        m = make(names).fit(insts)
        cmd = "python3 bench/loc/fit.py " + " ".join(f"--split {s}" for s in splits) + " --write"
        if drop:
            cmd += f" --drop {','.join(drop)}"
        if a.l2 != 1e-3:
            cmd += f" --l2 {a.l2}"
        path = os.path.join(REPO, "lib", "loc", "weights.rs")
        write_weights(path, m, names, cmd)
        print(f"wrote {path}", file=sys.stderr)
        return

    header = ("| setting | file@1 | file@3 | file@5 | module@5 | module@10 | function@5 | function@10 |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- |")
    print(f"cross-validation: {'leave one repository out' if a.cv == 'repo' else a.cv + ' folds by instance'}, "
          f"N = {sum(i.scored for i in insts)}\n")
    print(header)
    heur = cross_validate(insts, names, a.cv, Heuristic)
    print(table_line("hand-set score (no fitting)", score(insts, heur)))
    held = {}
    preds = cross_validate(insts, names, a.cv, make, held)
    s = score(insts, preds)
    print(table_line("**fitted model (CV)**", s))
    if a.seeds > 1 and a.cv != "repo":
        print(seeds_line("fitted model (CV)", insts, names, a.cv, make, a.seeds), flush=True)
    if a.ablate:
        for g, feats_ in GROUPS.items():
            mk = lambda nm, f=feats_: Model(nm, drop + f, a.l2)  # noqa: E731
            if a.seeds > 1 and a.cv != "repo":
                print(seeds_line(f"without {g}", insts, names, a.cv, mk, a.seeds), flush=True)
                continue
            print(table_line(f"without {g}", score(insts, cross_validate(insts, names, a.cv, mk))), flush=True)
        return
    if a.misses:
        ids = None if a.misses == "all" else \
            {json.loads(l)["instance_id"] for l in open(run.split_path(a.shared, a.misses)) if l.strip()}
        misses(insts, held, ids)
        return
    per_repo(insts, preds)
    if len(splits) > 1:
        print("\n| split | N | file@1 | file@3 | file@5 | module@5 | module@10 | function@5 | function@10 |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for sp in splits:
            ids = {json.loads(l)["instance_id"] for l in open(run.split_path(a.shared, sp)) if l.strip()}
            sub = [i for i in insts if i.iid in ids]
            sc = score(sub, preds)
            print(table_line(f"{sp} | {sum(i.scored for i in sub)}", sc))
    out = a.out or os.path.join(a.cache, "runs", f"cv_{a.cv}.jsonl")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        for i in insts:
            f.write(json.dumps(preds[i.iid]) + "\n")
    gold = os.path.join(a.cache, "runs", "cv_gold.jsonl")
    with open(gold, "w") as f:
        for i in insts:
            f.write(json.dumps({"instance_id": i.iid, "gold": i.gold}) + "\n")
    print(f"\nloc_metrics.py on the held-out predictions ({out}):")
    subprocess.run([sys.executable, os.path.join(a.shared, "loc_metrics.py"), "--gold", gold, "--pred", out],
                   check=False)


if __name__ == "__main__":
    main()
