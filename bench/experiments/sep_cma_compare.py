#!/usr/bin/env python3
"""chainsaw's sep-CMA-ES beside two others on the same problems, 10 seeds each, Mann-Whitney U.

    sep_cma_compare.py CHAINSAW OUT_DIR [--seeds 10]

The others: the float64 NumPy reference of tests/sep_cma_reference.py run as a whole loop (the
same formulas and bound handling as chainsaw, NumPy's random numbers), and the `cmaes` package's
SepCMA (Debian's python3-cmaes; Ros & Hansen's own c_cov parameterisation, bounds by
resampling). Each problem is the shifted function with o uniform in the middle 60% of the box,
the initial mean uniform in the box and sigma0 = 0.3 (upper - lower), as chainsaw draws them;
the shifts differ between the implementations (each draws its own), which an ES does not see
(it is translation invariant up to the bounds).

Measures: for sphere and hyperellipsoid the evaluations until f - f* <= 1e-8 (checked after
each generation); for Rastrigin the error after a fixed budget. Writes OUT_DIR/results.json and
OUT_DIR/table.md. Needs NumPy, SciPy (scipy.stats.mannwhitneyu) and python3-cmaes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
import sep_cma_reference as reference  # noqa: E402

FUNCTIONS = {
    "sphere": (-100.0, 100.0, lambda z: np.sum(z * z, axis=-1)),
    "hyperellipsoid": (-1.0, 1.0,
                       lambda z: np.sum((np.arange(1, z.shape[-1] + 1) ** 2) * z * z, axis=-1)),
    "rastrigin": (-5.12, 5.12,
                  lambda z: np.sum(z * z - 10 * np.cos(2 * np.pi * z) + 10, axis=-1)),
}
# (function, dim, budget, measure): "evals" to 1e-8 within the budget, or "error" after it.
CASES = [("sphere", 30, 20000, "evals"), ("hyperellipsoid", 30, 30000, "evals"),
         ("sphere", 100, 60000, "evals"), ("rastrigin", 30, 30000, "error"),
         ("rastrigin", 1000, 100000, "error")]


def problem(name, dim, rng):
    lower, upper, f = FUNCTIONS[name]
    o = lower + (upper - lower) * (0.2 + 0.6 * rng.random(dim))
    return lower, upper, lambda x: f(x - o)


def reference_run(name, dim, budget, seed):
    """The NumPy reference's loop: clip, evaluate, update; (evaluations, best error)."""
    rng = np.random.default_rng(seed)
    lower, upper, f = problem(name, dim, rng)
    lam = 4 + int(np.floor(3 * np.log(dim)))
    m = lower + (upper - lower) * rng.random(dim)
    c, pc, ps = np.ones(dim), np.zeros(dim), np.zeros(dim)
    sigma, g, evals, best = 0.3 * (upper - lower), 0, 0, np.inf
    while evals + lam <= budget:
        x = np.clip(m + sigma * np.sqrt(c) * rng.standard_normal((lam, dim)), lower, upper)
        fx = f(x)
        evals += lam
        best = min(best, float(fx.min()))
        if best <= 1e-8:
            break
        m, c, pc, ps, sigma, g = reference.update(dim, lam, g, sigma, m, c, pc, ps, x, fx)
    return evals, best


def cmaes_run(name, dim, budget, seed):
    from cmaes import SepCMA
    rng = np.random.default_rng(seed)
    lower, upper, f = problem(name, dim, rng)
    mean = lower + (upper - lower) * rng.random(dim)
    bounds = np.tile([lower, upper], (dim, 1))
    es = SepCMA(mean=mean, sigma=0.3 * (upper - lower), bounds=bounds, seed=seed)
    evals, best = 0, np.inf
    while evals + es.population_size <= budget:
        xs = [es.ask() for _ in range(es.population_size)]
        fx = [float(f(x)) for x in xs]
        evals += len(xs)
        best = min(best, min(fx))
        if best <= 1e-8:
            break
        es.tell(list(zip(xs, fx)))
    return evals, best


def chainsaw_runs(binary, name, dim, budget, seeds, out_dir):
    with tempfile.TemporaryDirectory(dir=out_dir) as scratch:
        out = os.path.join(scratch, "runs.json")
        subprocess.run([binary, "run", "-q", "--backend", "cpu", "--algorithm", "sep-cma-es",
                        "--function", name, "--dim", str(dim), "--evals", str(budget),
                        "--target-error", "1e-8", "--runs", str(len(seeds)),
                        "--seed", str(seeds[0]), "-o", out], check=True)
        with open(out) as fh:
            results = json.load(fh)["results"]
    return [(r["evaluations"]["total"], r["best_error"]) for r in results]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chainsaw")
    ap.add_argument("out_dir")
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    seeds = list(range(1, args.seeds + 1))
    rows, everything = [], {}
    for name, dim, budget, measure in CASES:
        runs = {"chainsaw": chainsaw_runs(args.chainsaw, name, dim, budget, seeds, args.out_dir),
                "numpy-reference": [reference_run(name, dim, budget, s) for s in seeds],
                "cmaes-SepCMA": [cmaes_run(name, dim, budget, s) for s in seeds]}
        pick = 0 if measure == "evals" else 1
        values = {k: [r[pick] for r in v] for k, v in runs.items()}
        everything[f"{name}-{dim}"] = {"budget": budget, "measure": measure, "runs": runs}
        mine = values["chainsaw"]
        cells = []
        for other in ("numpy-reference", "cmaes-SepCMA"):
            p = mannwhitneyu(mine, values[other], alternative="two-sided").pvalue
            cells.append(f"{np.median(values[other]):.4g} (p = {p:.3f})")
        reached = sum(1 for e, b in runs["chainsaw"] if b <= 1e-8)
        note = f" ({reached}/{len(seeds)} reached)" if pick == 0 else ""
        rows.append(f"| {name} | {dim} | {budget} | "
                    f"{'evaluations to 1e-8' if pick == 0 else 'error at budget'} | "
                    f"{np.median(mine):.4g}{note} | "
                    + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    with open(os.path.join(args.out_dir, "results.json"), "w") as fh:
        json.dump(everything, fh, indent=1)
    with open(os.path.join(args.out_dir, "table.md"), "w") as fh:
        fh.write("| function | D | budget | measure | chainsaw median | NumPy reference median "
                 "(Mann-Whitney p) | cmaes SepCMA median (p) |\n|---|---|---|---|---|---|---|\n")
        fh.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
