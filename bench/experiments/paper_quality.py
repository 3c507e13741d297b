#!/usr/bin/env python3
"""The GPU paper's quality tables (Lastra et al. 2014, Tables 2-12 and 15-20) beside chainsaw's,
under its default set-up and under the set-ups of docs/paper-quality.md's hypotheses.

  paper_quality.py run --out DIR [--chainsaw BIN] [--setups A,B] [--dims D ...] [--seeds N]
                   [--functions F,G] [--evals E] [--backend cuda] [--deadline S] [--estimate]
                   [-- more chainsaw run flags]
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
import lastra_tables as paper  # noqa: E402

FUNCTIONS = ["rastrigin", "griewank", "salomon", "sumsquares", "discus", "schwefel12"]
NAMES = {"rastrigin": "Rastrigin", "griewank": "Griewank", "salomon": "Salomon",
         "sumsquares": "Sum Squares", "discus": "Discus", "schwefel12": "Schwefel 1.2"}
# The set-ups: chainsaw's default and one per hypothesis (docs/paper-quality.md says which).
SETUPS = {
    "conventional": [],
    "unit-box": ["--domain=-1,1"],
    "unit-box-whole": ["--domain=-1,1", "--shift-range", "whole"],
}
# A box [-a, a] sized so that Discus and Sum Squares, which have no scale of their own (f + 330
# grows as a^2, the distance as a), land on the paper's GPU means at 10^5-D: a from the runs of
# the unit box it scales, the geometric mean of the four ratios. The other four functions test
# it. (set-up: (the unit-box set-up it scales, its flags but --domain))
FITTED = {"fit": ("unit-box", []), "fit-whole": ("unit-box-whole", ["--shift-range", "whole"])}
FIT_DIM = 100000
DEFAULT_SETUPS = ["conventional", "unit-box", "unit-box-whole"]
# --setups best: the set-up other than the default that reproduces the most cells at the
# smallest D already run (ties: the smaller summed |log(mean / paper's mean)|).
BEST = "best"


def fitted_half_width(rows, unit_setup):
    """The fitted box's half-width a from the unit box's runs at FIT_DIM, or None without them."""
    by = cells(rows)
    ratios = []
    for fn in ("discus", "sumsquares"):
        rs = by.get((unit_setup, fn, FIT_DIM))
        if not rs:
            return None
        bias = 330.0  # f + 330 = f - f(o), the paper's fBias (its §6.3.1)
        f = summary([float(r["best_fitness"]) for r in rs])[0] + bias
        d = summary([float(r["distance_to_optimum"]) for r in rs])[0]
        ratios += [math.sqrt((paper.cell(fn, "gpu", "f", FIT_DIM)[0] + bias) / f),
                   paper.cell(fn, "gpu", "d", FIT_DIM)[0] / d]
    a = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    return float(f"{a:.3g}")


def setup_flags(setup, rows):
    """The chainsaw flags of a set-up (a fitted one's from the rows already run)."""
    if setup in SETUPS:
        return SETUPS[setup]
    unit, flags = FITTED[setup]
    ran = [r["args"].split()[0] for r in rows if r["setup"] == setup]
    if ran:  # the box its first runs had, so that every run of the set-up shares it
        return [ran[0]] + flags
    a = fitted_half_width(rows, unit)
    if a is None:
        sys.exit(f"paper_quality: error: --setups {setup} needs the {unit} runs of Discus and "
                 f"Sum Squares at D = {FIT_DIM:,} in runs.csv first")
    return [f"--domain=-{a:g},{a:g}"] + flags
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


def best_setup(rows):
    """The set-up named by --setups best, from the rows already run; None before any."""
    by = cells(rows)
    candidates = {k[0] for k in by} - {"conventional"}
    if not candidates:
        return None
    dim = min(k[2] for k in by if k[0] in candidates)

    def score(setup):
        hits, misfit = 0, 0.0
        for fn in FUNCTIONS:
            rs = by.get((setup, fn, dim))
            if not rs or dim not in paper.DIMS:
                continue
            for measure, key in (("f", "best_fitness"), ("d", "distance_to_optimum")):
                mean = summary([float(r[key]) for r in rs])[0]
                hits += verdict(mean, fn, "gpu", measure, dim)
                mu = paper.cell(fn, "gpu", measure, dim)[0]
                misfit += abs(math.log(abs(mean) / abs(mu))) if mean and mu else math.inf
        return (-hits, misfit)
    return min(sorted(candidates), key=score)


def cmd_run(a):
    rows = read_rows(a.out)
    if BEST in a.setups:
        best = best_setup(rows)
        if best is None:
            sys.exit("paper_quality: error: --setups best needs runs of the other set-ups in "
                     f"{a.out}/runs.csv first")
        print(f"paper_quality: best = {best}", flush=True)
        a.setups = [best if s == BEST else s for s in a.setups]
    for s in a.setups:
        if s not in SETUPS and s not in FITTED:
            sys.exit(f"paper_quality: error: --setups: unknown set-up '{s}' "
                     f"(known: {', '.join(list(SETUPS) + list(FITTED))}, best)")
    flags = {s: setup_flags(s, rows) for s in a.setups}
    for s in FITTED:
        if s in flags:
            print(f"paper_quality: {s} = {' '.join(flags[s])}", flush=True)
    done = {row_key(r["setup"], r["function"], r["dim"], r["seed"]) for r in rows}
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
                    "--backend", a.backend, "--quiet"] + flags[setup] + a.extra
            with tempfile.TemporaryDirectory() as tmp:
                r, _ = run_once(a.chainsaw, args, os.path.join(tmp, "r.json"), "paper_quality")
            writer.writerow({"setup": setup, "function": function, "dim": dim, "seed": seed,
                             "evals": r["evaluations"]["total"], "backend": r["backend"],
                             "device": r["device"] or f"{r['threads']} threads",
                             "genes": r["genes"], "best_fitness": f"{r['best_fitness']:.12g}",
                             "distance_to_optimum": f"{r['distance_to_optimum']:.12g}",
                             "wall_seconds": f"{r['wall_seconds']:.3f}",
                             "args": " ".join(str(x) for x in flags[setup] + a.extra)})
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


def setup_label(setup, by):
    """The set-up's flags as its runs recorded them."""
    args = next((r["args"] for k, rs in by.items() if k[0] == setup for r in rs), "")
    return f"`{setup}` ({args or 'defaults'})"


def summary_table(by, setups, dims):
    lines = ["Functions whose chainsaw mean lies within the paper's GPU tolerance (fitness / "
             "distance), of the six:", "",
             "| set-up | " + " | ".join(f"D = {d:,}" for d in dims) + " |",
             "|---|" + "---|" * len(dims)]
    for s in setups:
        row = [setup_label(s, by)]
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
    known = list(SETUPS) + list(FITTED)
    setups = [s for s in known if any(k[0] == s for k in by)] + sorted(
        {k[0] for k in by} - set(known))
    dims = sorted({k[2] for k in by})
    machines = sorted({f"{r['backend']}: {r['device']}, {r['genes']} genes" for r in rows})
    evals = sorted({r["evals"] for r in rows})
    out = [f"{len(rows)} runs; {'; '.join(machines)}; {', '.join(evals)} evaluations; the "
           f"paper's means and sigmas from its Tables 15-20 "
           f"(bench/experiments/lastra_tables.py).", ""]
    out += summary_table(by, setups, dims) + [""]
    best = best_setup(rows)
    if best:
        out += [f"The best-supported set-up (the most cells within the paper's GPU tolerance at "
                f"the smallest D, then the closest means): `{best}`.", ""]
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
