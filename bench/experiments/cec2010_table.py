#!/usr/bin/env python3
"""The CEC 2010 table: F1..F20 at the given dimensions, budget and seeds, through the CLI.

Each run's result JSON is kept under OUT/runs/ (a run whose file exists is not repeated, so an
interrupted table resumes); OUT/cec2010.csv has one row per run and OUT/cec2010.md the table of
best errors (f(best) - f(o), f(o) = 0) per function and dimension: mean, standard deviation
(sample, n - 1), median, and the mean wall time of a run.

The full table (the paper's setting): 10^5 and 10^6 variables, 500,000 evaluations, 10 seeds
  bench/experiments/cec2010_table.py --dims 100000 1000000 --evals 500000 --seeds 10 --backend cuda \\
      --out cec2010
(to commit a table, copy cec2010.md and cec2010.csv into a campaign folder of bench/results/
with its README; the per-run JSONs stay out of the repository, see bench/check_results.py)
A quick check on the CPU:
  bench/experiments/cec2010_table.py --functions 1 2 --dims 1000 --evals 2000 --seeds 2 --backend cpu \
      --out /tmp/t
"""
import argparse
import csv
import itertools
import os
import statistics
import sys
import time

from chainsaw_runs import DEFAULT_BINARY, run_once, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chainsaw", default=DEFAULT_BINARY)
    ap.add_argument("--functions", type=int, nargs="+", default=list(range(1, 21)),
                    help="function numbers 1..20 (default: all)")
    ap.add_argument("--dims", type=int, nargs="+", default=[100000, 1000000])
    ap.add_argument("--evals", type=int, default=500000)
    ap.add_argument("--seeds", type=int, default=10, help="seeds 1..SEEDS")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--deadline", type=float, default=0,
                    help="start no run after this many seconds; the table has the runs there are")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: the table of the runs already under OUT/runs")
    ap.add_argument("extra", nargs="*", help="more `chainsaw run` flags, after --")
    a = ap.parse_args()
    start = time.monotonic()
    if any(n < 1 or n > 20 for n in a.functions):
        sys.exit("cec2010_table: error: --functions take numbers 1..20")

    runs_dir = os.path.join(a.out, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    rows = []
    # Seed after seed over all functions, so that a table cut short by --deadline has every
    # function with the same number of runs (give or take one).
    for seed, n, dim in itertools.product(range(1, a.seeds + 1), a.functions, a.dims):
        name = f"cec2010-f{n}"
        path = os.path.join(runs_dir, f"{name}_D{dim}_s{seed}.json")
        late = a.deadline > 0 and time.monotonic() - start > a.deadline
        if (a.report_only or late) and not os.path.exists(path):
            continue
        r, ran = run_once(a.chainsaw, ["--function", name, "--dim", dim, "--evals",
                                       a.evals, "--seed", seed, "--backend", a.backend,
                                       "--quiet"] + a.extra, path, "cec2010_table")
        if ran:
            print(f"{name} D={dim} seed {seed}: {r['wall_seconds']:.1f} s", flush=True)
        rows.append({"function": name, "number": n, "dim": dim, "seed": seed,
                     "evals": r["evaluations"]["total"], "backend": r["backend"],
                     "device": r["device"] or "", "genes": r["genes"],
                     "best_fitness": r["best_fitness"], "best_error": r["best_error"],
                     "distance_to_optimum": r["distance_to_optimum"],
                     "wall_seconds": r["wall_seconds"]})

    csv_path = os.path.join(a.out, "cec2010.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    where = rows[0]["backend"] + (" " + rows[0]["device"] if rows[0]["device"] else "")
    lines = [f"CEC 2010, {a.evals} evaluations, seeds 1..{a.seeds} (runs: how many of them "
             f"are done), {where} "
             f"({rows[0]['genes']} genes): best error f(best) - f(o)", "",
             "| function | D | runs | mean | std | median | mean time (s) |",
             "|---|---|---|---|---|---|---|"]
    for n in a.functions:
        for dim in a.dims:
            errs = [r["best_error"] for r in rows if r["number"] == n and r["dim"] == dim]
            secs = [r["wall_seconds"] for r in rows if r["number"] == n and r["dim"] == dim]
            if not errs:
                continue
            mean, std, median = summary(errs)
            lines.append(f"| F{n} | {dim} | {len(errs)} | {mean:.3e} | "
                         f"{std:.3e} | {median:.3e} | "
                         f"{statistics.mean(secs):.1f} |")
    md_path = os.path.join(a.out, "cec2010.md")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {csv_path} and {md_path}")


if __name__ == "__main__":
    main()
