#!/usr/bin/env python3
"""The paper's experiments: a grid of runs through the CLI, then its tables and figures.

  experiment.py run --preset reduced --out DIR [--chainsaw BIN] [overrides] [-- chainsaw flags]
  experiment.py report DIR

`run` executes functions x dims x seeds x backends with `chainsaw run --profile -q`, one result
JSON per run under DIR/runs/ (FUNCTION_D<dim>_s<seed>_<backend>.json). A run whose file exists
is skipped, so the same command continues an interrupted grid; --deadline SECONDS stops starting
new runs after that long. GPU runs come first, then every grid in increasing D. Standard library
only (the GPU machine has no matplotlib).

`report` reads every result JSON under DIR and writes, next to them:
  experiment.csv    one row per run (configuration, quality, time, profile buckets)
  tables.md         per function the layouts of the paper's Tables 1-12 (time and speed-up, mean
                    best fitness and distance), Tables 15-20 (mu, sigma, median) and Table 14
                    (profile share per bucket); speed-up = mean CPU time / mean GPU time
  speedup.png       speed-up against dimension, one line per function (the paper's Fig. 7)
  phases_<backend>.png   stacked profile buckets per dimension, one panel per function
  convergence_evaluations.png, convergence_seconds.png   best error (f - f(o)) against
                    evaluations and against seconds, from the result files' `trace`

Presets (--functions, --dims, --seeds, --cpu-seeds, --evals, --backends override them):
  reduced  the six functions at D = 1e5, 2e5, 5e5, 10,000 evaluations, 3 seeds on the GPU and 1
           on the CPU (16 threads): about 4-5 min on an H100 machine with 16 cores.
  paper    the six functions at D = 1e5, 5e5, 1e6, 1.5e6, 3e6, 500,000 evaluations, 10 seeds per
           backend (the paper's Tables 1-20). GPU side about 1 h on an H100; the CPU side about
           two weeks on 16 cores (the paper's single-threaded CPU runs took 150 days): run the
           CPU with --cpu-seeds 1 (~1.5 days) or the GPU alone with --backends cuda.
"""
import argparse
import csv
import glob
import json
import math
import os
import sys
import time

from chainsaw_runs import DEFAULT_BINARY, run_once, summary

PAPER_FUNCTIONS = ["rastrigin", "griewank", "salomon", "sumsquares", "discus", "schwefel12"]
PRESETS = {
    "reduced": {"functions": PAPER_FUNCTIONS, "dims": [100000, 200000, 500000], "seeds": 3,
                "cpu_seeds": 1, "evals": 10000, "backends": ["cuda", "cpu"]},
    "paper": {"functions": PAPER_FUNCTIONS, "dims": [100000, 500000, 1000000, 1500000, 3000000],
              "seeds": 10, "cpu_seeds": 10, "evals": 500000, "backends": ["cuda", "cpu"]},
}
BUCKETS = ["fitness", "crossover_rng", "distances", "solis_wets_moves", "sort", "transfers",
           "rng_init", "checkpoint_io", "other"]
BACKEND_LABEL = {"cpu": "CPU", "cuda": "GPU"}


def run_name(function, dim, seed, backend):
    return f"{function}_D{dim}_s{seed}_{backend}.json"


def cmd_run(a):
    grid = dict(PRESETS[a.preset])
    for key in ("functions", "dims", "seeds", "cpu_seeds", "evals", "backends"):
        if getattr(a, key) is not None:
            grid[key] = getattr(a, key)
    if a.seeds is not None and a.cpu_seeds is None:
        grid["cpu_seeds"] = a.seeds
    runs = []
    for backend in sorted(grid["backends"], key=lambda b: b != "cuda"):  # the fast side first
        seeds = grid["cpu_seeds"] if backend == "cpu" else grid["seeds"]
        for dim in sorted(grid["dims"]):
            for function in grid["functions"]:
                for seed in range(1, seeds + 1):
                    runs.append((function, dim, seed, backend))
    runs_dir = os.path.join(a.out, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    with open(os.path.join(a.out, "grid.json"), "w") as f:
        json.dump({"preset": a.preset, **grid, "extra": a.extra}, f, indent=1)

    start = time.monotonic()
    ran_seconds, ran = 0.0, 0
    for k, (function, dim, seed, backend) in enumerate(runs, 1):
        path = os.path.join(runs_dir, run_name(function, dim, seed, backend))
        what = f"[{k}/{len(runs)}] {function} D={dim} seed {seed} {backend}"
        if a.deadline is not None and not os.path.exists(path) and \
                time.monotonic() - start > a.deadline:
            left = sum(1 for r in runs[k - 1:] if not os.path.exists(
                os.path.join(runs_dir, run_name(*r))))
            print(f"experiment: deadline of {a.deadline:g} s reached, {left} runs left; the same "
                  f"command continues the grid", flush=True)
            return
        t0 = time.monotonic()
        if not os.path.exists(path):
            print(f"{what}: running", flush=True)
        r, did_run = run_once(a.chainsaw, ["--function", function, "--dim", dim, "--evals",
                                           grid["evals"], "--seed", seed, "--backend", backend,
                                           "--profile", "--quiet"] + a.extra, path, "experiment")
        if not did_run:
            print(f"{what}: done before", flush=True)
            continue
        ran += 1
        ran_seconds += time.monotonic() - t0
        print(f"{what}: {r['wall_seconds']:.2f} s, best {r['best_fitness']:.4e}, "
              f"elapsed {time.monotonic() - start:.0f} s", flush=True)
    print(f"experiment: {len(runs)} runs in {a.out} ({ran} ran now, {ran_seconds:.0f} s)")


# ---------------------------------------------------------------------------------- report --

def load_runs(folder):
    rows = []
    paths = sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True))
    for path in paths:
        with open(path) as f:
            try:
                r = json.load(f)
            except json.JSONDecodeError:
                continue
        if not isinstance(r, dict) or "best_fitness" not in r or "config" not in r:
            continue  # grid.json and anything else that is not a result
        c = r["config"]
        row = {"function": c["function"], "dim": c["dim"], "seed": c["seed"],
               "backend": r["backend"], "device": r["device"] or "", "threads": r["threads"],
               "genes": r["genes"], "evals": r["evaluations"]["total"],
               "best_fitness": r["best_fitness"], "best_error": r["best_error"],
               "distance_to_optimum": r["distance_to_optimum"],
               "wall_seconds": r["wall_seconds"], "setup_seconds": r["setup_seconds"],
               "file": os.path.relpath(path, folder)}
        profile = r.get("profile") or {}
        row["profile_total_seconds"] = profile.get("total_seconds", "")
        for b in BUCKETS:
            row[f"profile_{b}_seconds"] = profile.get("buckets", {}).get(b, {}).get("seconds", "")
        row["_trace"] = r.get("trace", [])
        row["_optimum"] = r["best_fitness"] - r["best_error"]
        rows.append(row)
    return rows


def group(rows, *keys):
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def human(seconds):
    """The paper's readable run time: 53,543 s (>0.5 days)."""
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.2f} s"


def e(x):
    return f"{x:.2e}"


def mean_of(rows, key):
    return summary([r[key] for r in rows])[0]


def speedups(rows):
    """(function, dim) -> mean CPU wall time / mean GPU wall time, where both exist."""
    by = group(rows, "function", "dim", "backend")
    out = {}
    for (function, dim, backend), rs in by.items():
        if backend == "cuda" and (function, dim, "cpu") in by:
            out[(function, dim)] = mean_of(by[(function, dim, "cpu")], "wall_seconds") / \
                mean_of(rs, "wall_seconds")
    return out


def tables(rows):
    by = group(rows, "function", "dim", "backend")
    sp = speedups(rows)
    functions = sorted({r["function"] for r in rows},
                       key=lambda f: (PAPER_FUNCTIONS + [f]).index(f))
    backends = [b for b in ("cpu", "cuda") if any(r["backend"] == b for r in rows)]
    devices = sorted({f"{r['backend']}: {r['device'] or str(r['threads']) + ' threads'}"
                      for r in rows})
    evals = sorted({r["evals"] for r in rows})
    out = [f"# Experiment: {len(rows)} runs; {', '.join(devices)}; evaluations "
           f"{', '.join(str(v) for v in evals)}", "",
           "Layouts of the paper's tables. Times are the mean `wall_seconds` of the runs; "
           "speed-up = mean CPU time / mean GPU time; objective function = mean best fitness "
           "f(best) (the optimum is -330 for the paper's functions); distance = mean Euclidean "
           "distance of the best individual to the optimum; n = runs per cell.", ""]
    for fn in functions:
        dims = sorted({r["dim"] for r in rows if r["function"] == fn})
        out += [f"## {fn}", "", f"Run time (layout of Tables 1, 3, 5, 7, 9, 11)", "",
                "| Dimensions | CPU | GPU | Speed-up |", "|---|---|---|---|"]
        for d in dims:
            cell = []
            for b in ("cpu", "cuda"):
                rs = by.get((fn, d, b))
                t = mean_of(rs, "wall_seconds") if rs else 0.0
                cell.append(f"{t:,.2f} s{f' ({human(t)})' if t >= 60 else ''}, n={len(rs)}"
                            if rs else "–")
            s = sp.get((fn, d))
            out.append(f"| {d:,} | {cell[0]} | {cell[1]} | {f'{s:.1f}' if s else '–'} |")
        out += ["", "Quality (layout of Tables 2, 4, 6, 8, 10, 12)", "",
                "| Dimensions | Objective function CPU | GPU | Euclidean distance CPU | GPU |",
                "|---|---|---|---|---|"]
        for d in dims:
            cells = []
            for key in ("best_fitness", "distance_to_optimum"):
                for b in ("cpu", "cuda"):
                    rs = by.get((fn, d, b))
                    cells.append(e(mean_of(rs, key)) if rs else "–")
            out.append(f"| {d:,} | " + " | ".join(cells) + " |")
        cols = [(b, d) for b in backends for d in dims if (fn, d, b) in by]
        out += ["", "Extended quality (layout of Tables 15-20): μ, σ (n - 1), median", "",
                "| | " + " | ".join(f"{BACKEND_LABEL[b]} {d:,}" for b, d in cols) + " |",
                "|---|" + "---|" * len(cols)]
        for key, title in (("best_fitness", "Objective function"),
                           ("distance_to_optimum", "Distance")):
            out.append(f"| *{title}* |" + " |" * len(cols))
            stats = [summary([r[key] for r in by[(fn, d, b)]]) for b, d in cols]
            for i, name in enumerate(("μ", "σ", "median")):
                out.append(f"| {name} | " + " | ".join(e(s[i]) for s in stats) + " |")
        profiled = [(b, d) for b, d in cols
                    if all(r["profile_total_seconds"] != "" for r in by[(fn, d, b)])]
        if profiled:
            out += ["", "Profile (layout of Table 14): mean share of each bucket, largest first "
                    "(`chainsaw run --profile`; fused passes counted where their genes are made)",
                    ""]
            out += ["| " + " | ".join(f"{BACKEND_LABEL[b]} {d:,}" for b, d in profiled) + " |",
                    "|" + "---|" * len(profiled)]
            columns = []
            for b, d in profiled:
                rs = by[(fn, d, b)]
                shares = {k: summary([r[f"profile_{k}_seconds"] / r["profile_total_seconds"]
                                      for r in rs])[0] for k in BUCKETS}
                columns.append(sorted(shares.items(), key=lambda kv: -kv[1]))
            for i in range(len(BUCKETS)):
                out.append("| " + " | ".join(f"{100 * c[i][1]:.0f}% {c[i][0]}" for c in columns)
                           + " |")
        out.append("")
    return "\n".join(out) + "\n"


def plots(rows, folder):
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"experiment: error: report draws with matplotlib, which {sys.executable} lacks "
                 "(Debian: apt-get install python3-matplotlib, then use /usr/bin/python3)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    functions = sorted({r["function"] for r in rows},
                       key=lambda f: (PAPER_FUNCTIONS + [f]).index(f))

    sp = speedups(rows)
    fig, ax = plt.subplots(figsize=(6, 4))
    for fn in functions:
        pts = sorted((d, s) for (f, d), s in sp.items() if f == fn)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=fn)
    ax.set_xscale("log")
    ax.set_xlabel("dimension D")
    ax.set_ylabel("speed-up (CPU time / GPU time)")
    ax.set_title("Speed-up against dimension (paper Fig. 7)")
    if sp:
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no dimension has runs on both backends", ha="center",
                transform=ax.transAxes)
    fig.tight_layout()
    written.append(os.path.join(folder, "speedup.png"))
    fig.savefig(written[-1], dpi=120)
    plt.close(fig)

    for backend in sorted({r["backend"] for r in rows}):
        rs_b = [r for r in rows if r["backend"] == backend and r["profile_total_seconds"] != ""]
        if not rs_b:
            continue
        fns = [f for f in functions if any(r["function"] == f for r in rs_b)]
        fig, axes = plt.subplots(1, len(fns), figsize=(3.2 * len(fns), 3.6), squeeze=False)
        for ax, fn in zip(axes[0], fns):
            by_dim = group([r for r in rs_b if r["function"] == fn], "dim")
            dims = sorted(k[0] for k in by_dim)
            bottom = [0.0] * len(dims)
            for k in BUCKETS:
                share = [100 * summary([r[f"profile_{k}_seconds"] / r["profile_total_seconds"]
                                        for r in by_dim[(d,)]])[0] for d in dims]
                ax.bar([str(d) for d in dims], share, bottom=bottom, label=k)
                bottom = [b + s for b, s in zip(bottom, share)]
            ax.set_title(fn, fontsize=9)
            ax.set_xlabel("D", fontsize=8)
            ax.tick_params(labelsize=7)
        axes[0][0].set_ylabel(f"% of time ({BACKEND_LABEL[backend]})")
        axes[0][-1].legend(fontsize=6, loc="center left", bbox_to_anchor=(1, 0.5))
        fig.tight_layout()
        written.append(os.path.join(folder, f"phases_{backend}.png"))
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)

    for column, name, label in ((0, "evaluations", "evaluations"), (1, "seconds", "seconds")):
        fig, axes = plt.subplots(1, len(functions), figsize=(3.2 * len(functions), 3.4),
                                 squeeze=False)
        for ax, fn in zip(axes[0], functions):
            cases = group([r for r in rows if r["function"] == fn], "backend", "dim")
            for i, ((backend, dim), rs) in enumerate(sorted(cases.items())):
                for j, r in enumerate(sorted(rs, key=lambda r: r["seed"])):
                    pts = [(p[column], p[2] - r["_optimum"]) for p in r["_trace"]]
                    if not pts:
                        continue
                    ax.plot([p[0] for p in pts], [max(p[1], 1e-300) for p in pts],
                            color=f"C{i % 10}", alpha=0.8, linewidth=1,
                            linestyle="-" if backend == "cuda" else "--",
                            label=f"{BACKEND_LABEL[backend]} D={dim:g}" if j == 0 else None)
            ax.set_yscale("log")
            if column == 1:
                ax.set_xscale("log")
            ax.set_title(fn, fontsize=9)
            ax.set_xlabel(label, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=6)
        axes[0][0].set_ylabel("best error f - f(o)")
        fig.tight_layout()
        written.append(os.path.join(folder, f"convergence_{name}.png"))
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)
    return written


def cmd_report(a):
    rows = load_runs(a.folder)
    if not rows:
        sys.exit(f"experiment: error: no result JSON under {a.folder}")
    out = a.out or a.folder
    os.makedirs(out, exist_ok=True)
    fields = [k for k in rows[0] if not k.startswith("_")]
    rows.sort(key=lambda r: (r["function"], r["dim"], r["backend"], r["seed"]))
    with open(os.path.join(out, "experiment.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write(tables(rows))
    written = plots(rows, out)
    print(f"experiment: {len(rows)} runs -> {out}/experiment.csv, tables.md, "
          + ", ".join(os.path.basename(p) for p in written))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a grid through the CLI")
    r.add_argument("--preset", choices=sorted(PRESETS), default="reduced")
    r.add_argument("--out", required=True, help="output folder (runs/ inside)")
    r.add_argument("--chainsaw", default=DEFAULT_BINARY)
    r.add_argument("--functions", nargs="+")
    r.add_argument("--dims", type=int, nargs="+")
    r.add_argument("--seeds", type=int, help="seeds 1..SEEDS per backend")
    r.add_argument("--cpu-seeds", type=int, help="seeds on the CPU (default: --seeds)")
    r.add_argument("--evals", type=int)
    r.add_argument("--backends", nargs="+", choices=["cpu", "cuda"])
    r.add_argument("--deadline", type=float, help="start no run after this many seconds")
    r.add_argument("extra", nargs="*", help="more `chainsaw run` flags, after --")
    p = sub.add_parser("report", help="CSV, Markdown tables and PNG plots of a folder of runs")
    p.add_argument("folder")
    p.add_argument("--out", help="where to write (default: the folder)")
    a = ap.parse_args()
    if a.command == "run":
        if a.seeds is not None and a.seeds < 1 or a.cpu_seeds is not None and a.cpu_seeds < 1:
            sys.exit("experiment: error: --seeds and --cpu-seeds must be at least 1")
        cmd_run(a)
    else:
        cmd_report(a)


if __name__ == "__main__":
    main()
