#!/usr/bin/env python3
"""The GPU paper's quality tables (Lastra et al. 2014, Tables 2-12 and 15-20) beside chainsaw's,
under its default set-up and under the set-ups of docs/paper-quality.md's hypotheses.

  paper_quality.py run --out DIR [--chainsaw BIN] [--setups A,B] [--dims D ...] [--seeds N]
                       [--functions F,G] [--evals E] [--backend cuda] [--deadline S] [--estimate]
  paper_quality.py report DIR [--docs docs/paper-quality.md]

`run` executes setups x dims x functions x seeds with `chainsaw run -q` and appends one row per
run to DIR/runs.csv (the result JSON is read and dropped: a 10-seed grid at three dimensions is
hundreds of runs). A row already there is skipped, so the same command continues an interrupted
grid; --deadline stops before a run that its estimated time would take past SECONDS. Seeds are
the outer loop, so a grid cut short has every cell at about the same number of seeds.
--estimate prints the runs left and their estimated GPU time (an H200's measured run times) and
runs nothing.

`report` writes DIR/paper_quality.md: per function and D the paper's CPU and GPU mean +- sigma and
chainsaw's mean +- sd under each set-up, with whether chainsaw's mean lies within the paper's
tolerance (its sigma, or the rounding of its two printed digits where that is larger), and a
summary of how many functions are within it. --docs replaces the part of that page between its
`<!-- paper-quality:begin -->` and `<!-- paper-quality:end -->` lines with the same tables.
Standard library only (the GPU machine has no extra Python packages).
"""
import argparse
import csv
import json
import math
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chainsaw_runs import DEFAULT_BINARY, run_once, summary  # noqa: E402
import paper_tables as paper  # noqa: E402

FUNCTIONS = ["rastrigin", "griewank", "salomon", "sumsquares", "discus", "schwefel12"]
NAMES = {"rastrigin": "Rastrigin", "griewank": "Griewank", "salomon": "Salomon",
         "sumsquares": "Sum Squares", "discus": "Discus", "schwefel12": "Schwefel 1.2"}
# The set-ups: chainsaw's default and one per hypothesis (docs/paper-quality.md says which).
SETUPS = {
    "conventional": [],
    "unit-box": ["--domain=-1,1"],
    "unit-box-whole": ["--domain=-1,1", "--shift-range", "whole"],
}
DEFAULT_SETUPS = ["conventional", "unit-box", "unit-box-whole"]
# Seconds per run on one H200 (chainsaw's wall_seconds at 500,000 evaluations,
# bench/results/2026-11-29-h200-sw-step-barriers), plus the process start and CUDA set-up.
RUN_SECONDS = {
    100000: {"rastrigin": 1.2, "griewank": 1.55, "salomon": 1.2, "sumsquares": 1.2,
             "discus": 1.2, "schwefel12": 1.5},
    1000000: {"rastrigin": 3.7, "griewank": 5.3, "salomon": 3.0, "sumsquares": 3.3,
              "discus": 3.1, "schwefel12": 4.4},
    3000000: {"rastrigin": 9.1, "griewank": 13.6, "salomon": 7.1, "sumsquares": 7.9,
              "discus": 7.4, "schwefel12": 11.0},
}
START_SECONDS = 0.8
FIELDS = ["setup", "function", "dim", "seed", "evals", "backend", "device", "genes",
          "best_fitness", "distance_to_optimum", "wall_seconds", "args"]


def estimate(function, dim, evals):
    """Estimated seconds of one run: the measured D nearest to dim, scaled by D and budget."""
    near = min(RUN_SECONDS, key=lambda d: abs(math.log(d / dim)))
    return RUN_SECONDS[near][function] * max(dim / near, 0.3) * evals / 500000 + START_SECONDS


def read_rows(folder):
    path = os.path.join(folder, "runs.csv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def row_key(setup, function, dim, seed):
    return (setup, function, int(dim), int(seed))


def grid(a):
    runs = []
    for seed in range(1, a.seeds + 1):
        for dim in a.dims:
            for setup in a.setups:
                for function in a.functions:
                    runs.append((setup, function, dim, seed))
    return runs


def cmd_run(a):
    for s in a.setups:
        if s not in SETUPS:
            sys.exit(f"paper_quality: error: --setups: unknown set-up '{s}' "
                     f"(known: {', '.join(SETUPS)})")
    done = {row_key(r["setup"], r["function"], r["dim"], r["seed"]) for r in read_rows(a.out)}
    todo = [r for r in grid(a) if row_key(*r) not in done]
    if a.estimate:
        by_dim = {}
        for setup, function, dim, seed in todo:
            by_dim[dim] = by_dim.get(dim, 0.0) + estimate(function, dim, a.evals)
        total = sum(by_dim.values())
        for dim in sorted(by_dim):
            print(f"D = {dim:,}: {sum(1 for r in todo if r[2] == dim)} runs, "
                  f"about {by_dim[dim]:.0f} s")
        print(f"{len(todo)} runs left of {len(grid(a))}, about {total:.0f} s "
              f"({total / 60:.1f} min) of one H200")
        return
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "runs.csv")
    new_file = not os.path.exists(path)
    start = time.monotonic()
    with open(path, "a", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
        for k, (setup, function, dim, seed) in enumerate(todo, 1):
            cost = estimate(function, dim, a.evals)
            if a.deadline is not None and time.monotonic() - start + cost > a.deadline:
                print(f"paper_quality: deadline of {a.deadline:g} s: {len(todo) - k + 1} runs "
                      f"left; the same command continues the grid", flush=True)
                return
            args = ["--function", function, "--dim", dim, "--evals", a.evals, "--seed", seed,
                    "--backend", a.backend, "--quiet"] + SETUPS[setup] + a.extra
            with tempfile.TemporaryDirectory() as tmp:
                r, _ = run_once(a.chainsaw, args, os.path.join(tmp, "r.json"), "paper_quality")
            writer.writerow({"setup": setup, "function": function, "dim": dim, "seed": seed,
                             "evals": r["evaluations"]["total"], "backend": r["backend"],
                             "device": r["device"] or f"{r['threads']} threads",
                             "genes": r["genes"], "best_fitness": repr(r["best_fitness"]),
                             "distance_to_optimum": repr(r["distance_to_optimum"]),
                             "wall_seconds": r["wall_seconds"],
                             "args": " ".join(str(x) for x in SETUPS[setup] + a.extra)})
            out.flush()
            print(f"[{k}/{len(todo)}] {setup} {function} D={dim} seed {seed}: "
                  f"{r['wall_seconds']:.2f} s, best {r['best_fitness']:.4e}, distance "
                  f"{r['distance_to_optimum']:.4e}", flush=True)
    print(f"paper_quality: {len(todo)} runs in {time.monotonic() - start:.0f} s, {path}")


# ---------------------------------------------------------------------------------- report --

def sci(x, digits=2):
    """x with `digits` significant digits (the paper prints its means with two)."""
    return f"{x:.{digits - 1}e}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")


def verdict(mean, function, side, measure, dim):
    """Whether mean reproduces the paper's cell; False at a D the paper did not run."""
    if dim not in paper.DIMS:
        return False
    mu, _ = paper.cell(function, side, measure, dim)
    return abs(mean - mu) <= paper.tolerance(function, side, measure, dim)


def cells(rows):
    out = {}
    for r in rows:
        out.setdefault((r["setup"], r["function"], int(r["dim"])), []).append(r)
    return out


def quality_table(function, measure, by, setups, dims):
    title = "best fitness" if measure == "f" else "distance to the optimum"
    key = "best_fitness" if measure == "f" else "distance_to_optimum"
    head = ["D", "paper CPU μ ± σ", "paper GPU μ ± σ"] + [f"`{s}`" for s in setups]
    lines = [f"{NAMES[function]}, {title} (paper Table {paper.PAPER[function][0]}; "
             f"chainsaw mean ± sd, n runs; C / G: within the paper's CPU / GPU tolerance)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for dim in dims:
        row = [f"{dim:,}"]
        for side in ("cpu", "gpu"):
            if dim not in paper.DIMS:
                row.append("–")
                continue
            mu, sigma = paper.cell(function, side, measure, dim)
            row.append(f"{sci(mu)} ± {sci(sigma)}")
        for s in setups:
            rs = by.get((s, function, dim), [])
            if not rs:
                row.append("–")
                continue
            mean, sd, _ = summary([float(r[key]) for r in rs])
            marks = "".join(m for m, side in (("C", "cpu"), ("G", "gpu"))
                            if verdict(mean, function, side, measure, dim))
            row.append(f"{sci(mean, 3)} ± {sci(sd)}, n {len(rs)}" +
                       (f" **{marks}**" if marks else ""))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def summary_table(by, setups, dims):
    lines = ["Functions whose chainsaw mean lies within the paper's GPU tolerance (fitness / "
             "distance), of the six:", "",
             "| set-up | " + " | ".join(f"D = {d:,}" for d in dims) + " |",
             "|---|" + "---|" * len(dims)]
    for s in setups:
        row = [f"`{s}` ({' '.join(SETUPS.get(s, [])) or 'defaults'})"]
        for dim in dims:
            counted = [fn for fn in FUNCTIONS if by.get((s, fn, dim))]
            if not counted:
                row.append("–")
                continue
            hits = []
            for measure, key in (("f", "best_fitness"), ("d", "distance_to_optimum")):
                hits.append(sum(verdict(summary([float(r[key]) for r in by[(s, fn, dim)]])[0],
                                        fn, "gpu", measure, dim) for fn in counted))
            row.append(f"{hits[0]} / {hits[1]} of {len(counted)}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def report_text(rows):
    by = cells(rows)
    setups = [s for s in SETUPS if any(k[0] == s for k in by)] + sorted(
        {k[0] for k in by} - set(SETUPS))
    dims = sorted({k[2] for k in by})
    machines = sorted({f"{r['backend']}: {r['device']}, {r['genes']} genes" for r in rows})
    evals = sorted({r["evals"] for r in rows})
    out = [f"{len(rows)} runs; {'; '.join(machines)}; {', '.join(evals)} evaluations; the "
           f"paper's means and sigmas from its Tables 15-20 (bench/paper_tables.py).", ""]
    out += summary_table(by, setups, dims) + [""]
    for fn in [f for f in FUNCTIONS if any(k[1] == f for k in by)]:
        for measure in ("f", "d"):
            out += quality_table(fn, measure, by, setups, dims) + [""]
    return "\n".join(out)


BEGIN, END = "<!-- paper-quality:begin -->", "<!-- paper-quality:end -->"


def splice(page, text):
    """The page with its generated part replaced by text."""
    if BEGIN not in page or END not in page:
        sys.exit(f"paper_quality: error: --docs: the page has no {BEGIN} ... {END} block")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{text}\n{END}{tail}"


def cmd_report(a):
    rows = read_rows(a.folder)
    if not rows:
        sys.exit(f"paper_quality: error: {a.folder}/runs.csv has no runs")
    text = report_text(rows)
    path = os.path.join(a.folder, "paper_quality.md")
    with open(path, "w") as f:
        f.write(text + "\n")
    print(f"paper_quality: wrote {path}")
    if a.docs:
        with open(a.docs) as f:
            page = f.read()
        with open(a.docs, "w") as f:
            f.write(splice(page, text))
        print(f"paper_quality: updated {a.docs}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--chainsaw", default=DEFAULT_BINARY)
    r.add_argument("--setups", default=",".join(DEFAULT_SETUPS))
    r.add_argument("--functions", default=",".join(FUNCTIONS))
    r.add_argument("--dims", type=int, nargs="+", default=[100000])
    r.add_argument("--seeds", type=int, default=10)
    r.add_argument("--evals", type=int, default=500000)
    r.add_argument("--backend", default="cuda")
    r.add_argument("--deadline", type=float)
    r.add_argument("--estimate", action="store_true")
    r.add_argument("extra", nargs="*", help="after --: more chainsaw run flags for every run")
    p = sub.add_parser("report")
    p.add_argument("folder")
    p.add_argument("--docs")
    a = ap.parse_args()
    if a.command == "run":
        a.setups = [s for s in a.setups.split(",") if s]
        a.functions = [f for f in a.functions.split(",") if f]
        for f in a.functions:
            if f not in FUNCTIONS:
                sys.exit(f"paper_quality: error: --functions: '{f}' is not one of the paper's six")
        cmd_run(a)
    else:
        cmd_report(a)


if __name__ == "__main__":
    main()
