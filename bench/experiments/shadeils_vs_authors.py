#!/usr/bin/env python3
"""SHADE-ILS in chainsaw against its authors' Python code (github dmolina/shadeils), on the same
NumPy objectives at the same true evaluation count.

Both optimisers minimise one NumPy function (a shifted elliptic, Rastrigin or Ackley, CEC 2013
LSGO's F1-F3 without their transformations); every call of the authors' code is counted by a
wrapper that ends their run at exactly --evals calls (their own counter is not exact), and the
best value seen up to then is their result. chainsaw runs `algorithm="shade-ils"` through its
Python module with the same objective. Per function: both samples, their medians and the
two-sided Mann-Whitney U test (SciPy).

    PYTHONPATH=build-cpu/python python3 bench/experiments/shadeils_vs_authors.py \\
        --authors DIR --dim 1000 --evals 120000 --seeds 10 --out results.json

DIR is a checkout of dmolina/shadeils. The harness replaces two things their code imports and
that cannot be installed here: cec2013lsgo (the benchmark, unused: the objective is passed in)
and ipdb (their pool's all-zero branch calls ipdb.set_trace(), then np.random.choice on dict
keys, which fails in Python 3; the stub returns a random method instead).
"""
import argparse
import contextlib
import io
import json
import math
import sys
import time
import types

import numpy as np
from scipy.stats import mannwhitneyu


class BudgetReached(Exception):
    pass


def make_objective(name, dim, seed=2013):
    lo, hi = {"elliptic": (-100.0, 100.0), "rastrigin": (-5.0, 5.0), "ackley": (-32.0, 32.0)}[name]
    o = np.random.default_rng(seed).uniform(0.8 * lo, 0.8 * hi, dim)
    weights = 10.0 ** (6.0 * np.arange(dim) / max(1, dim - 1))

    def f(x):  # rows (n, dim) -> (n,)
        z = np.atleast_2d(x).astype(np.float64) - o
        if name == "elliptic":
            return (weights * z * z).sum(axis=1)
        if name == "rastrigin":
            return (z * z - 10.0 * np.cos(2.0 * np.pi * z) + 10.0).sum(axis=1)
        return (-20.0 * np.exp(-0.2 * np.sqrt((z * z).mean(axis=1)))
                - np.exp(np.cos(2.0 * np.pi * z).mean(axis=1)) + 20.0 + math.e)
    return f, lo, hi


def load_authors(path):
    sys.path[:0] = [path, path + "/ea"]
    bench = types.ModuleType("cec2013lsgo")
    bench.cec2013 = types.ModuleType("cec2013lsgo.cec2013")
    bench.cec2013.Benchmark = object
    sys.modules["cec2013lsgo"] = bench
    sys.modules["cec2013lsgo.cec2013"] = bench.cec2013
    sys.modules["ipdb"] = types.SimpleNamespace(set_trace=lambda: None)
    import shadeils  # noqa: E402
    original = shadeils.PoolLast.update_prob

    def update_prob(self):
        if all(v == 0 for v in self.improvements.values()):
            return list(self.improvements.keys())[np.random.randint(len(self.improvements))]
        return original(self)
    shadeils.PoolLast.update_prob = update_prob
    return shadeils


def run_authors(shadeils, f, lo, hi, dim, evals, seed):
    calls = [0]
    best = [math.inf]

    def counted(x):
        if calls[0] >= evals:
            raise BudgetReached
        calls[0] += 1
        value = float(f(x)[0])
        best[0] = min(best[0], value)
        return value
    np.random.seed(seed)
    info = {"lower": lo, "upper": hi, "threshold": 0, "best": 0}
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # their SHADE prints every phase
            shadeils.ihshadels(counted, info, dim, [evals], io.StringIO(), info_de=100,
                               popsize=100, threshold=0.01)
    except BudgetReached:
        pass
    return best[0], calls[0]


def run_chainsaw(f, lo, hi, dim, evals, seed):
    import chainsaw
    r = chainsaw.minimize(f, bounds=(lo, hi), dim=dim, evals=evals, seed=seed,
                          algorithm="shade-ils", backend="cpu", threads=1)
    return float(r.fun), int(r.nfev)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--authors", required=True)
    p.add_argument("--dim", type=int, default=1000)
    p.add_argument("--evals", type=int, default=120000)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--functions", default="elliptic,rastrigin,ackley")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    shadeils = load_authors(a.authors)
    table = {}
    for name in a.functions.split(","):
        f, lo, hi = make_objective(name, a.dim)
        rows = {"chainsaw": [], "authors": [], "seconds": {"chainsaw": 0.0, "authors": 0.0}}
        for s in range(1, a.seeds + 1):
            t = time.time()
            rows["chainsaw"].append(run_chainsaw(f, lo, hi, a.dim, a.evals, s)[0])
            rows["seconds"]["chainsaw"] += time.time() - t
            t = time.time()
            rows["authors"].append(run_authors(shadeils, f, lo, hi, a.dim, a.evals, s)[0])
            rows["seconds"]["authors"] += time.time() - t
            print(f"{name} seed {s}: chainsaw {rows['chainsaw'][-1]:.4e} "
                  f"authors {rows['authors'][-1]:.4e}", flush=True)
        test = mannwhitneyu(rows["chainsaw"], rows["authors"], alternative="two-sided")
        rows["median"] = {k: float(np.median(rows[k])) for k in ("chainsaw", "authors")}
        rows["mean"] = {k: float(np.mean(rows[k])) for k in ("chainsaw", "authors")}
        rows["mann_whitney_p"] = float(test.pvalue)
        table[name] = rows
        with open(a.out, "w") as out:
            json.dump({"dim": a.dim, "evals": a.evals, "seeds": a.seeds, "functions": table},
                      out, indent=1)
    print("| function | chainsaw median | authors' median | Mann-Whitney p |")
    print("|---|---|---|---|")
    for name, rows in table.items():
        print(f"| {name} | {rows['median']['chainsaw']:.4e} | {rows['median']['authors']:.4e} | "
              f"{rows['mann_whitney_p']:.3g} |")


if __name__ == "__main__":
    main()
