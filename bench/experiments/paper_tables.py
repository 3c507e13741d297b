#!/usr/bin/env python3
"""The experiments of Janssen et al. 2024, Nashed et al. 2012 and Krömer et al. 2011
(docs/references.md), run by chainsaw: grids of `chainsaw run` cells, then tables (and plots where
matplotlib is installed) to hold against the papers' own.

  paper_tables.py run EXPERIMENT... --out DIR [--binary build/chainsaw] [--backends cuda,cpu]
                 [--runs N] [--dims ...] [--scale S] [--deadline SECONDS]
  paper_tables.py report DIR          # DIR/tables.md, DIR/cells.csv, DIR/nashed_error_vs_time_D*.png

Experiments (the defaults are the papers'; --runs, --dims and --scale shrink them):
  janssen-time  Janssen et al. Table 3: DE/rand/1/bin, NP 250, CR 0.3, F 0.5, 100-D, 10^7
                evaluations on janssen-f1..f10, 30 runs; time per run for each backend
                (cuda, cpu = all cores, cpu1 = one thread). Runs are one process each, one
                after the other, so each is timed alone. Their All-GPU iDE: 0.60-1.85 s per
                function on an RTX 3080.
  janssen-rank  Janssen et al. Table 4: de against jde for NP 50, 100, 250, 500 on
                janssen-f1..f10, 10,000 D evaluations (the CEC budget), --dims (default 10 30 50
                100), 30 runs; mean error and the mean rank of each (algorithm, NP) over the
                functions and dimensions.
  nashed        Nashed et al. Table 2: de (their tuned NP 48, F 0.520, CR 0.879, exponential),
                pso (125 particles, w 0.494, c1 1.862, c2 1.881) and ss (chainsaw's defaults,
                their section 3) on nashed-f0..f19 at 10-D and 30-D with a 1-second budget,
                100 runs: mean and sd of the error, and error-vs-time curves (their Fig. 2).
  kromer        Kromer et al. Table 1: DE on the 12 ETC classes (512 tasks, 16 machines),
                NP 64, 512, 1024, a 30-second budget, 10 runs: mean best fitness.
  kromer-loads  the same with --etc-flowtime loads, the flowtime the paper's values measure
                (the sum of the machines' loads; docs/functions.md).

The runs of a quality cell run concurrently (`--runs N`: a thread each on the CPU, a stream each
on the GPU), so under a wall-clock budget each run has a share of the machine, not all of it;
--sequential runs them one after the other instead (N times longer). --scale multiplies every
budget (evaluations and seconds) for a quick pass. A cell whose file exists is skipped: the same
command continues an interrupted grid. Standard library only for `run` (the GPU machine has no
matplotlib).
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BINARY = os.path.join(HERE, "..", "..", "build", "chainsaw")
NO_EVALUATION_LIMIT = 10**15  # a wall-clock budget's runs stop on time, not on evaluations

JANSSEN = [f"janssen-f{i}" for i in range(1, 11)]
NASHED = [f"nashed-f{i}" for i in range(20)]
ETC_CLASSES = [f"u_{c}_{t}{m}" for t in ("hi", "lo") for m in ("hi", "lo") for c in ("c", "i", "s")]
ALGORITHMS = {
    "de-janssen": ["--algorithm", "de", "--de-np", "250", "--de-cr", "0.3", "--de-f", "0.5",
                   "--de-crossover", "bin"],
    "de-nashed": ["--algorithm", "de", "--de-np", "48", "--de-f", "0.520", "--de-cr", "0.879",
                  "--de-crossover", "exp"],
    "pso": ["--algorithm", "pso"],
    "ss": ["--algorithm", "ss"],
}
KROMER_ORDER = ["ThMhCc", "ThMhCi", "ThMhCs", "ThMlCc", "ThMlCi", "ThMlCs", "TlMhCc", "TlMhCi",
                "TlMhCs", "TlMlCc", "TlMlCi", "TlMlCs"]


def _kromer_gpu():
    """Kromer et al.'s Table 1, mean best fitness after 30 s on a Tesla C2050 (their GPU
    column), NP -> a value per class in KROMER_ORDER: the study file kromer2011.toml's
    [published.kromer-npN] tables (one transcription)."""
    with open(os.path.join(HERE, "kromer2011.toml"), "rb") as f:
        published = tomllib.load(f)["published"]
    return {n: [float(published[f"kromer-np{n}"]["mean"][k]) for k in KROMER_ORDER]
            for n in (64, 512, 1024)}


KROMER_GPU = _kromer_gpu()
# Janssen et al.'s Table 3 (All-GPU iDE, RTX 3080, s per run) and Table 4 (final rank).
JANSSEN_IDE_SECONDS = [0.63, 0.61, 0.60, 0.66, 0.70, 0.78, 1.05, 1.28, 1.55, 1.85]
JANSSEN_RANK = {("de", 50): 5, ("de", 100): 6, ("de", 250): 7, ("de", 500): 8,
                ("jde", 50): 3, ("jde", 100): 2, ("jde", 250): 1, ("jde", 500): 4}


def braun_name(kromer):
    """ThMlCs -> u_s_hilo (Braun et al.'s file names)."""
    t, m, c = kromer[1], kromer[3], kromer[5]
    return f"u_{c}_{'hi' if t == 'h' else 'lo'}{'hi' if m == 'h' else 'lo'}"


def backend_args(backend, threads=0):
    return {"cuda": ["--backend", "cuda"], "cpu": ["--backend", "cpu", "--threads", str(threads)],
            "cpu1": ["--backend", "cpu", "--threads", "1"]}[backend]


def cells(a):
    """(experiment, cell name, chainsaw arguments, runs, one process per run)."""
    scale = a.scale
    for experiment in a.experiments:
        if experiment == "janssen-time":
            runs = a.runs or 30
            for backend in a.backends + (["cpu1"] if "cpu" in a.backends else []):
                for f in JANSSEN:
                    args = ["--function", f, "--dim", "100", "--evals", str(int(1e7 * scale))]
                    yield (experiment, f"{f}_{backend}", args + ALGORITHMS["de-janssen"]
                           + backend_args(backend, a.threads), runs, True)
        elif experiment == "janssen-rank":
            runs = a.runs or 30
            for d in a.dims or [10, 30, 50, 100]:
                for alg in ("de", "jde"):
                    for np_ in (50, 100, 250, 500):
                        for f in JANSSEN:
                            args = ["--function", f, "--dim", str(d), "--evals",
                                    str(max(int(10000 * d * scale), 2 * np_)), "--algorithm", alg,
                                    "--de-np", str(np_)] + backend_args(a.backends[0], a.threads)
                            yield (experiment, f"{f}_D{d}_{alg}_NP{np_}", args, runs, False)
        elif experiment == "nashed":
            runs = a.runs or 100
            for backend in a.backends:
                for d in a.dims or [10, 30]:
                    for alg in ("de-nashed", "pso", "ss"):
                        for f in NASHED:
                            args = ["--function", f, "--dim", str(d), "--evals",
                                    str(NO_EVALUATION_LIMIT), "--time-limit", f"{scale:g}s"]
                            yield (experiment, f"{f}_D{d}_{alg}_{backend}",
                                   args + ALGORITHMS[alg] + backend_args(backend, a.threads),
                                   runs, False)
        elif experiment in ("kromer", "kromer-loads"):
            runs = a.runs or 10
            flowtime = ["--etc-flowtime", "loads"] if experiment == "kromer-loads" else []
            for backend in a.backends:
                for np_ in (64, 512, 1024):
                    for k in KROMER_ORDER:
                        args = ["--function", "etc", "--dim", "512", "--etc-machines", "16",
                                "--etc-class", braun_name(k), "--evals", str(NO_EVALUATION_LIMIT),
                                "--time-limit", f"{30 * scale:g}s", "--algorithm", "de",
                                "--de-np", str(np_)] + flowtime
                        yield (experiment, f"{k}_NP{np_}_{backend}",
                               args + backend_args(backend, a.threads), runs, False)
        else:
            raise SystemExit(f"unknown experiment '{experiment}' (janssen-time, janssen-rank, "
                             "nashed, kromer, kromer-loads)")


class Refused(Exception):
    """chainsaw refused the cell's configuration (exit 2, one line): e.g. a function that a
    backend's path does not evaluate. The cell is recorded as refused and the grid goes on."""


def chainsaw_run(binary, args):
    p = subprocess.run([binary, "run", *args, "-q"], capture_output=True, text=True)
    if p.returncode == 2:
        raise Refused(p.stderr.strip().removeprefix("chainsaw: error: "))
    if p.returncode != 0:
        raise SystemExit(f"chainsaw {' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def run_cell(binary, args, runs, separate, sequential, path):
    """One cell: `runs` runs with seeds 1..runs, one JSON (the --runs file layout); a cell that
    chainsaw refuses is kept as {"args", "refused": its one line}."""
    try:
        if separate or sequential:
            results = [chainsaw_run(binary, [*args, "--seed", str(seed)])
                       for seed in range(1, runs + 1)]
            document = {"args": args, "runs": runs, "results": results}
        else:
            document = chainsaw_run(binary, [*args, "--runs", str(runs), "--seed", "1"])
            if runs == 1:
                document = {"results": [document]}
            document["args"] = args
    except Refused as refused:
        document = {"args": args, "refused": str(refused)}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(document, f)
    os.replace(tmp, path)


def cmd_run(a):
    a.backends = a.backends.split(",")
    start = time.monotonic()
    todo = list(cells(a))
    for i, (experiment, name, args, runs, separate) in enumerate(todo):
        folder = os.path.join(a.out, experiment)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name + ".json")
        if os.path.exists(path):
            continue
        if a.deadline and time.monotonic() - start > a.deadline:
            print(f"deadline: {len(todo) - i} cells left", file=sys.stderr)
            return 0
        t = time.monotonic()
        run_cell(a.binary, args, runs, separate, a.sequential, path)
        print(f"[{i + 1}/{len(todo)}] {experiment} {name}: {time.monotonic() - t:.1f} s",
              flush=True)
    return 0


# ---- report

def load(folder, refused=None):
    """The cells' documents by (experiment, cell); refused cells go to `refused` instead."""
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "*", "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        key = (os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-5])
        if "refused" in doc:
            if refused is not None:
                refused[key] = doc["refused"]
        else:
            out[key] = doc
    return out


def errors(doc):
    return [r["best_error"] for r in doc["results"]]


def mean_sd(values):
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def e(x):
    return f"{x:.3e}" if x != 0 and (abs(x) >= 1e5 or abs(x) < 1e-2) else f"{x:.4g}"


def janssen_time(docs):
    rows = ["| function | " + " | ".join(f"{b} s/run (mean)" for b in ("cuda", "cpu", "cpu1"))
            + " | their All-GPU iDE s | best error, cuda (mean) |", "|---|---|---|---|---|---|"]
    for f, theirs in zip(JANSSEN, JANSSEN_IDE_SECONDS):
        cols = []
        for b in ("cuda", "cpu", "cpu1"):
            doc = docs.get(("janssen-time", f"{f}_{b}"))
            cols.append(f"{statistics.fmean(r['wall_seconds'] for r in doc['results']):.3f}"
                        if doc else "—")
        doc = docs.get(("janssen-time", f"{f}_cuda"))
        rows.append(f"| {f} | " + " | ".join(cols) + f" | {theirs} | "
                    + (e(mean_sd(errors(doc))[0]) if doc else "—") + " |")
    return rows


def janssen_rank(docs):
    keys = sorted({k[1] for k in docs if k[0] == "janssen-rank"})
    problems = sorted({(k.split("_")[0], k.split("_")[1]) for k in keys})
    configs = sorted({tuple(k.split("_")[2:]) for k in keys},
                     key=lambda c: (c[0], int(c[1][2:])))
    ranks = {c: [] for c in configs}
    for f, d in problems:
        means = {c: mean_sd(errors(docs[("janssen-rank", f"{f}_{d}_{c[0]}_{c[1]}")]))[0]
                 for c in configs if ("janssen-rank", f"{f}_{d}_{c[0]}_{c[1]}") in docs}
        order = sorted(means, key=means.get)
        for c in means:  # ties share the mean of their ranks
            tied = [i + 1 for i, o in enumerate(order) if means[o] == means[c]]
            ranks[c].append(statistics.fmean(tied))
    rows = ["| algorithm | NP | mean rank | problems | their final rank |", "|---|---|---|---|---|"]
    for c in sorted(configs, key=lambda c: statistics.fmean(ranks[c]) if ranks[c] else 1e9):
        if ranks[c]:
            rows.append(f"| {c[0]} | {c[1][2:]} | {statistics.fmean(ranks[c]):.2f} | "
                        f"{len(ranks[c])} | {JANSSEN_RANK.get((c[0], int(c[1][2:])), '—')} |")
    return rows


def nashed(docs):
    rows = []
    for backend in ("cuda", "cpu"):
        for d in (10, 30):
            have = [f for f in NASHED if ("nashed", f"{f}_D{d}_pso_{backend}") in docs]
            if not have:
                continue
            rows += ["", f"{backend}, D = {d}: error f − f* after the budget, mean (sd) over the "
                     "runs", "",
                     "| function | de | pso | ss |", "|---|---|---|---|"]
            for f in NASHED:
                cols = []
                for alg in ("de-nashed", "pso", "ss"):
                    doc = docs.get(("nashed", f"{f}_D{d}_{alg}_{backend}"))
                    if doc:
                        m, s = mean_sd(errors(doc))
                        cols.append(f"{e(m)} ({e(s)})")
                    else:
                        cols.append("—")
                rows.append(f"| {f} | " + " | ".join(cols) + " |")
    return rows


KROMER_LOADS_TITLE = "Kromer et al. Table 1, flowtime as the sum of the loads (the paper's values)"


def kromer(docs, experiment="kromer"):
    rows = []
    for backend in ("cuda", "cpu"):
        if not any(k[0] == experiment and k[1].endswith(backend) for k in docs):
            continue
        rows += ["", f"{backend}: mean best fitness after the budget (the paper's GPU column in "
                 "brackets: Tesla C2050, 30 s)", "",
                 "| ETC | NP 64 | NP 512 | NP 1024 |", "|---|---|---|---|"]
        for i, k in enumerate(KROMER_ORDER):
            cols = []
            for np_ in (64, 512, 1024):
                doc = docs.get((experiment, f"{k}_NP{np_}_{backend}"))
                ours = (e(statistics.fmean(r["best_fitness"] for r in doc["results"])) if doc
                        else "—")
                cols.append(f"{ours} [{e(KROMER_GPU[np_][i])}]")
            rows.append(f"| {k} ({braun_name(k)}) | " + " | ".join(cols) + " |")
    return rows


def nashed_curves(docs, folder):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written = []
    for backend in ("cuda", "cpu"):
        for d in (10, 30):
            if not any(("nashed", f"{f}_D{d}_pso_{backend}") in docs for f in NASHED):
                continue
            fig, axes = plt.subplots(4, 5, figsize=(18, 13))
            for ax, f in zip(axes.flat, NASHED):
                for alg, label in (("de-nashed", "de"), ("pso", "pso"), ("ss", "ss")):
                    doc = docs.get(("nashed", f"{f}_D{d}_{alg}_{backend}"))
                    if not doc:
                        continue
                    # the median over the runs of the best error so far, on a common time grid
                    end = max(r["wall_seconds"] for r in doc["results"])
                    grid = [end * i / 50 for i in range(1, 51)]
                    med = []
                    for t in grid:
                        at = []
                        for r in doc["results"]:
                            optimum = r["best_fitness"] - r["best_error"]
                            best = [b for _, s, b in r["trace"] if s <= t]
                            if best:
                                at.append(best[-1] - optimum)
                        med.append(statistics.median(at) if at else math.nan)
                    ax.plot(grid, [max(m, 1e-12) for m in med], label=label)
                ax.set_yscale("log")
                ax.set_title(f, fontsize=9)
            axes.flat[0].legend()
            fig.suptitle(f"Nashed et al.'s functions, D = {d}, {backend}: median error vs seconds")
            fig.tight_layout()
            name = f"nashed_error_vs_time_D{d}_{backend}.png"
            fig.savefig(os.path.join(folder, name), dpi=70)
            plt.close(fig)
            written.append(name)
    return written


def cells_csv(docs, folder):
    """DIR/cells.csv: per cell, the device it ran on, the runs, mean and sd of the error (of f
    where the optimum is unknown), evaluations per run (least, median, most), the longest run
    and the cell's wall time."""
    header = ("experiment,cell,device,runs,mean,sd,value,evals_min,evals_median,evals_max,"
              "longest_run_s,cell_wall_s")
    lines = [header]
    for (experiment, cell), doc in sorted(docs.items()):
        results = doc["results"]
        known = all(r["best_error"] is not None for r in results)
        m, sd = mean_sd([r["best_error"] if known else r["best_fitness"] for r in results])
        evals = sorted(r["evaluations"]["total"] for r in results)
        lines.append(",".join(str(v) for v in (
            experiment, cell, doc.get("device") or results[0].get("device") or "",
            len(results), f"{m:.10g}", f"{sd:.10g}", "error" if known else "f", evals[0],
            evals[len(evals) // 2], evals[-1],
            f"{max(r['wall_seconds'] for r in results):.4f}",
            f"{doc['wall_seconds']:.2f}" if "wall_seconds" in doc else "")))
    with open(os.path.join(folder, "cells.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


def cmd_report(a):
    refused = {}
    docs = load(a.folder, refused)
    lines = ["# Seed papers' experiments, run by chainsaw", ""]
    for title, key, make in (
            ("Janssen et al. Table 3: time per run", "janssen-time", janssen_time),
            ("Janssen et al. Table 4: de against jde", "janssen-rank", janssen_rank),
            ("Nashed et al. Table 2", "nashed", nashed),
            ("Kromer et al. Table 1", "kromer", kromer),
            (KROMER_LOADS_TITLE, "kromer-loads", lambda docs: kromer(docs, "kromer-loads"))):
        if any(k[0] == key for k in docs):
            lines += [f"## {title}", ""] + make(docs) + [""]
    if refused:  # "—" in the tables above
        lines += ["## Cells chainsaw refused", "", "| experiment | cell | why |", "|---|---|---|"]
        lines += [f"| {k[0]} | {k[1]} | {why} |" for k, why in sorted(refused.items())] + [""]
    cells_csv(docs, a.folder)
    plots = nashed_curves(docs, a.folder)
    lines += [f"![{p}]({p})" for p in plots]
    with open(os.path.join(a.folder, "tables.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("experiments", nargs="+")
    r.add_argument("--out", required=True)
    r.add_argument("--binary", default=DEFAULT_BINARY)
    r.add_argument("--backends", default="cuda,cpu")
    r.add_argument("--runs", type=int, help="runs per cell (default: the paper's)")
    r.add_argument("--dims", type=int, nargs="+")
    r.add_argument("--scale", type=float, default=1.0,
                   help="multiply every budget (evaluations, seconds) by this")
    r.add_argument("--sequential", action="store_true",
                   help="one run after the other in each cell, not concurrently")
    r.add_argument("--deadline", type=float, help="start no cell after this many seconds")
    r.add_argument("--threads", type=int, default=0,
                   help="the cpu backend's threads per process (0: all cores)")
    r.set_defaults(fn=cmd_run)
    rep = sub.add_parser("report")
    rep.add_argument("folder")
    rep.set_defaults(fn=cmd_report)
    a = p.parse_args()
    if getattr(a, "scale", 1.0) <= 0:
        p.error("--scale: a positive number")
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
