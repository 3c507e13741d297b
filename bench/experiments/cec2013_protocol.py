#!/usr/bin/env python3
"""The CEC 2013 LSGO competition's protocol (Li et al. 2013): every function, 25 runs, the
error (f - 0) of the best after 1.2e5, 6e5 and 3e6 evaluations, through the CLI.

`run` starts one `chainsaw run --runs R --milestones ...` per function (the milestones are the
competition's fractions 0.04, 0.2 and 1 of --evals: 1.2e5, 6e5, 3e6 at the official budget) and
keeps its JSON under OUT/runs/ (a function whose file exists is not run again, so an
interrupted protocol resumes). Standard library only: the GPU machine has no extra packages.
`report` writes OUT/cec2013.md (the competition's table: best, median, worst, mean and sd per
function and milestone; the published means of MOS and SHADE-ILS beside chainsaw's; the time
of the runs) and OUT/cec2013.csv, and with matplotlib OUT/convergence.png, the median error
against evaluations of f2, f7, f11, f12, f13 and f14 (the competition's six).

The official instances (D = 1000, 905 for F13 and F14), 25 runs on the GPU:
  bench/experiments/cec2013_protocol.py run --out cec2013-d1000 --backend cuda \\
      --instance tests/data/cec2013/cdatafiles
Generated instances at 10^5 variables (F13, F14: 90,005), 5 runs:
  bench/experiments/cec2013_protocol.py run --out cec2013-d1e5 --backend cuda --scale 100 --runs 5
and then, where matplotlib is (Debian: python3-matplotlib):
  /usr/bin/python3 bench/experiments/cec2013_protocol.py report cec2013-d1000
A quick check on the CPU:
  bench/experiments/cec2013_protocol.py run --out /tmp/p --functions 2 12 --runs 2 --evals 3000 \\
      --backend cpu --instance tests/data/cec2013/cdatafiles
"""
import argparse
import csv
import json
import os
import statistics
import sys

from chainsaw_runs import DEFAULT_BINARY, run_once

# The competition's milestones as fractions of its budget of 3e6 evaluations.
MILESTONE_FRACTIONS = (0.04, 0.2, 1.0)
CONVERGENCE_FUNCTIONS = (2, 7, 11, 12, 13, 14)

# Published mean errors after 3e6 evaluations. MOS: LaTorre, Muelas, Pena 2013, Table IV
# (FEs = 3.0e+06, Mean; 25 runs); SHADE-ILS: Molina, LaTorre, Herrera 2018, Table VI (mean;
# 51 runs), whose MOS column repeats LaTorre et al.'s. Neither paper's per-run errors are
# published, so the comparison is of means; the 1.2e5 and 6e5 means are not given here.
PUBLISHED_3E6 = {
    "MOS": (0.00e+00, 8.32e+02, 9.17e-13, 1.74e+08, 6.94e+06, 1.48e+05, 1.62e+04, 8.00e+12,
            3.83e+08, 9.02e+05, 5.22e+07, 2.47e+02, 3.40e+06, 2.56e+07, 2.35e+06),
    "SHADE-ILS": (2.69e-24, 1.00e+03, 2.01e+01, 1.48e+08, 1.39e+06, 1.02e+06, 7.41e+01, 3.17e+11,
                  1.64e+08, 9.18e+07, 5.11e+05, 6.18e+01, 1.00e+05, 5.76e+06, 6.25e+05),
}
PUBLISHED_SOURCES = (
    "MOS: LaTorre, Muelas, Pena 2013, \"Large Scale Global Optimization: Experimental Results "
    "with MOS-based Hybrid Algorithms\", IEEE CEC 2013, Table IV (25 runs)",
    "SHADE-ILS: Molina, LaTorre, Herrera 2018, \"SHADE with Iterative Local Search for "
    "Large-Scale Global Optimization\", IEEE CEC 2018, Table VI (51 runs)",
)


def dimension(number, scale):
    """The competition's D scaled: 1000 k variables, 900 k + 5 for the overlapping F13, F14."""
    return 900 * scale + 5 if number in (13, 14) else 1000 * scale


def milestones(evals):
    return [max(1, round(f * evals)) for f in MILESTONE_FRACTIONS]


def run_path(out, number, dim):
    return os.path.join(out, "runs", f"cec2013-f{number}_D{dim}.json")


def cmd_run(a):
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    marks = ",".join(str(m) for m in milestones(a.evals))
    for n in a.functions:
        dim = dimension(n, a.scale)
        args = ["--function", f"cec2013-f{n}", "--dim", dim, "--evals", a.evals, "--runs", a.runs,
                "--seed", a.seed, "--milestones", marks, "--backend", a.backend, "--quiet"]
        if a.instance:
            args += ["--instance", a.instance]
        r, ran = run_once(a.chainsaw, args + a.extra, run_path(a.out, n, dim), "cec2013_protocol")
        if ran:
            print(f"cec2013-f{n} D={dim}: {a.runs} runs in {r['wall_seconds']:.1f} s", flush=True)


def load(out):
    """Per function number: its runs' documents (run_many's `results`) and the whole file."""
    docs = {}
    folder = os.path.join(out, "runs")
    for name in sorted(os.listdir(folder)):
        if name.startswith("cec2013-f") and name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
            number = int(name[len("cec2013-f"):].split("_")[0])
            docs[number] = doc
    if not docs:
        sys.exit(f"cec2013_protocol: error: no results under {folder}")
    return docs


def errors_at(doc, mark):
    """Each run's error after exactly `mark` evaluations (its milestone record)."""
    values = []
    for r in doc["results"]:
        at = [m for m in r["milestones"] if m[0] == mark]
        if not at:
            sys.exit(f"cec2013_protocol: error: a run of {r['config']['function']} has no "
                     f"milestone at {mark} evaluations")
        values.append(at[0][2])  # f* = 0: the best fitness is the error
    return values


def statistics_of(values):
    return {"best": min(values), "median": statistics.median(values), "worst": max(values),
            "mean": statistics.mean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0}


def e(x):
    return f"{x:.2e}"


def table(docs):
    """{(number, mark): statistics} for every function and milestone."""
    rows = {}
    for n, doc in docs.items():
        for mark in doc["config"]["milestones"]:
            rows[(n, mark)] = statistics_of(errors_at(doc, mark))
    return rows


def competition_table(docs, rows, numbers):
    marks = docs[numbers[0]]["config"]["milestones"]
    lines = ["| evaluations | | " + " | ".join(f"F{n}" for n in numbers) + " |",
             "|---|---|" + "---|" * len(numbers)]
    for mark in marks:
        for stat in ("best", "median", "worst", "mean", "sd"):
            cells = [e(rows[(n, mark)][stat]) if (n, mark) in rows else "" for n in numbers]
            lines.append(f"| {mark:.1e} | {stat} | " + " | ".join(cells) + " |")
    return lines


def comparison_table(docs, rows):
    lines = ["| function | chainsaw mean | MOS | SHADE-ILS | lowest |", "|---|---|---|---|---|"]
    for n, doc in sorted(docs.items()):
        final = doc["config"]["milestones"][-1]
        ours = rows[(n, final)]["mean"]
        theirs = {k: v[n - 1] for k, v in PUBLISHED_3E6.items()}
        lowest = min([("chainsaw", ours)] + list(theirs.items()), key=lambda kv: kv[1])[0]
        lines.append(f"| F{n} | {e(ours)} | {e(theirs['MOS'])} | {e(theirs['SHADE-ILS'])} | "
                     f"{lowest} |")
    return lines


def write_report(out, docs, rows):
    first = next(iter(docs.values()))
    config, result = first["config"], first["results"][0]
    where = first["backend"] + (f" ({first['device']})" if first["device"] else "")
    instance = config["instance"] or f"generated from problem seed {config['problem_seed']}"
    numbers = sorted(docs)
    lines = [f"# CEC 2013 LSGO, {config['evals']} evaluations, {first['runs']} runs "
             f"(seeds {first['seeds'][0]}..{first['seeds'][-1]})", "",
             f"{result['algorithm']} on {where}, {first['genes']} genes; instances: "
             f"{instance}; D = " +
             ", ".join(f"{docs[n]['config']['dim']} (F{n})" for n in numbers) + ".", "",
             "Errors f(best) - 0 after exactly the evaluations of each milestone (the result "
             "files' `milestones`).", ""]
    lines += competition_table(docs, rows, [n for n in numbers if n <= 8]) + [""]
    if any(n > 8 for n in numbers):
        lines += competition_table(docs, rows, [n for n in numbers if n > 8]) + [""]
    if config["evals"] == 3000000:
        lines += ["Mean errors after 3e6 evaluations beside the published ones (no per-run "
                  "errors are published: a comparison of means, no rank test):", ""]
        lines += comparison_table(docs, rows) + [""] + [f"- {s}" for s in PUBLISHED_SOURCES]
        lines += [""]
    lines += ["| function | D | seconds per run (mean) | all runs (s) |", "|---|---|---|---|"]
    for n in numbers:
        seconds = [r["wall_seconds"] for r in docs[n]["results"]]
        lines.append(f"| F{n} | {docs[n]['config']['dim']} | {statistics.mean(seconds):.1f} | "
                     f"{docs[n]['wall_seconds']:.1f} |")
    with open(os.path.join(out, "cec2013.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "cec2013.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["function", "dim", "evaluations", "runs", "best", "median", "worst", "mean",
                    "sd"])
        for (n, mark), s in sorted(rows.items()):
            w.writerow([f"cec2013-f{n}", docs[n]["config"]["dim"], mark, len(docs[n]["results"]),
                        s["best"], s["median"], s["worst"], s["mean"], s["sd"]])


def curve(result, grid):
    """The run's best at each evaluation count of the grid, from its trace (a step function)."""
    points, out, k = result["trace"], [], 0
    for g in grid:
        while k + 1 < len(points) and points[k + 1][0] <= g:
            k += 1
        out.append(points[k][2] if points[k][0] <= g else float("nan"))
    return out


def plot(out, docs):
    try:
        import matplotlib
    except ImportError:
        print(f"cec2013_protocol: no matplotlib for {sys.executable}: convergence.png not drawn "
              "(Debian: python3-matplotlib, then /usr/bin/python3)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    numbers = [n for n in CONVERGENCE_FUNCTIONS if n in docs]
    if not numbers:
        return
    fig, axes = plt.subplots(2, 3, figsize=(12, 7))
    for ax, n in zip(axes.flat, CONVERGENCE_FUNCTIONS):
        if n not in docs:
            ax.set_visible(False)
            continue
        doc = docs[n]
        evals = doc["config"]["evals"]
        grid = [round(evals * (i + 1) / 200) for i in range(200)]
        curves = [curve(r, grid) for r in doc["results"]]
        median = [statistics.median(c[i] for c in curves) for i in range(len(grid))]
        ax.fill_between(grid, [min(c[i] for c in curves) for i in range(len(grid))],
                        [max(c[i] for c in curves) for i in range(len(grid))], alpha=0.25)
        ax.plot(grid, median)
        for mark in doc["config"]["milestones"]:
            ax.axvline(mark, color="grey", linewidth=0.5)
        ax.set_yscale("log")
        ax.set_title(f"F{n} (D = {doc['config']['dim']})")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("error: median, range")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "convergence.png"), dpi=100)


def cmd_report(a):
    docs = load(a.out)
    rows = table(docs)
    write_report(a.out, docs, rows)
    plot(a.out, docs)
    print(f"cec2013_protocol: {os.path.join(a.out, 'cec2013.md')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the functions (a file per function under OUT/runs)")
    r.add_argument("--out", required=True)
    r.add_argument("--chainsaw", default=DEFAULT_BINARY)
    r.add_argument("--functions", type=int, nargs="+", default=list(range(1, 16)))
    r.add_argument("--runs", type=int, default=25)
    r.add_argument("--evals", type=int, default=3000000)
    r.add_argument("--scale", type=int, default=1, help="D = 1000 SCALE (F13, F14: 900 SCALE + 5)")
    r.add_argument("--seed", type=int, default=1, help="the runs' seeds are SEED .. SEED + RUNS - 1")
    r.add_argument("--instance", help="the official cdatafiles folder (D = 1000: --scale 1)")
    r.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    r.add_argument("extra", nargs="*", help="more `chainsaw run` flags, after --")
    p = sub.add_parser("report", help="the tables and plots of OUT's runs")
    p.add_argument("out")
    a = ap.parse_args()
    if a.command == "run":
        if any(n < 1 or n > 15 for n in a.functions):
            sys.exit("cec2013_protocol: error: --functions take numbers 1..15")
        if a.scale < 1 or a.runs < 1:
            sys.exit("cec2013_protocol: error: --scale and --runs must be at least 1")
        cmd_run(a)
    else:
        cmd_report(a)


if __name__ == "__main__":
    main()
