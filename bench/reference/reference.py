#!/usr/bin/python3
"""chainsaw against the reference implementation: Rmalschains 0.2-10, the R package of the
LS-chains authors (its C++ core is librealea), on the same problems with the same parameters.

For each row (function, D, evaluations) both run SEEDS seeds; seed s is also the problem seed,
so both solve the same instance (the reference's objective is chainsaw's own per-gene terms and
shift, compiled into objective.so: see objective.cpp). Prints a Markdown table of the error
f - f(o) (mean, sd, two-sided Mann-Whitney p) and the time of a run on one core.

  bench/reference/reference.py --install               # once: R packages + objective.so
  bench/reference/reference.py --binary build-cpu/chainsaw --runs /tmp/ref-runs --jobs 2 \\
      --out bench/results/DATE-cpu-reference/table.md

--runs DIR keeps every run's JSON and skips runs already there (resumable; the reference side
is the slow one). --rows picks rows (e.g. 1000:50000), --functions some functions,
--chainsaw-args extra flags for chainsaw (an ablation: give it its own --label).
Needs: R (Debian: apt-get install r-base-core r-base-dev r-cran-rcpp) and python3-scipy (hence
Debian's /usr/bin/python3, not a virtual environment without scipy).
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FUNCTIONS = ["rastrigin", "griewank", "sumsquares", "schwefel12"]
ROWS = [(1000, 50000), (10000, 100000)]
OPTIMUM = -330.0  # f(o) of the paper's functions
RMALSCHAINS = "Rmalschains_0.2-10.tar.gz"
CRAN_ARCHIVE = "https://cran.r-project.org/src/contrib/Archive/Rmalschains/" + RMALSCHAINS


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def install(args):
    """Rmalschains into args.rlib (from --rmalschains-src, a source folder or tarball, else the
    CRAN archive) and objective.so next to the runs."""
    os.makedirs(args.rlib, exist_ok=True)
    have = subprocess.run(["Rscript", "-e", f'.libPaths("{args.rlib}"); '
                           'quit(status = !requireNamespace("Rmalschains", quietly = TRUE))'])
    if have.returncode != 0:
        src = args.rmalschains_src
        if not src:
            src = os.path.join(args.rlib, RMALSCHAINS)
            sh(["curl", "-fsSL", "-o", src, CRAN_ARCHIVE])
        sh(["R", "CMD", "INSTALL", f"--library={args.rlib}", src])
    build_objective(args)


def objective_path(args):
    return os.path.join(args.rlib, "chainsaw_objective.so")


def build_objective(args):
    rcpp = subprocess.run(["Rscript", "-e", "cat(system.file('include', package = 'Rcpp'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    env = dict(os.environ)
    env["PKG_CPPFLAGS"] = f"-I{ROOT} -I{rcpp} -DCHAINSAW_DOUBLE"
    env["PKG_CXXFLAGS"] = "-std=c++17 -O2"
    out = objective_path(args)
    # Built in the library folder, so that no object file lands in the repository.
    src = os.path.join(args.rlib, "chainsaw_objective.cpp")
    shutil.copyfile(os.path.join(HERE, "objective.cpp"), src)
    sh(["R", "CMD", "SHLIB", "-o", out, src], env=env, cwd=args.rlib)


def cpu_seconds_of(cmd):
    """Runs cmd; returns the CPU time (user + system) of the process: the machine may be
    shared, so wall time would measure the neighbours too."""
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return usage.ru_utime + usage.ru_stime


def run_chainsaw(args, function, dim, evals, seed, path):
    cmd = [args.binary, "run", "--function", function, "--dim", str(dim), "--evals", str(evals),
           "--seed", str(seed), "--backend", "cpu", "--threads", "1", "--quiet",
           "--output", path] + shlex.split(args.chainsaw_args)
    cpu = cpu_seconds_of(cmd)
    with open(path) as f:
        r = json.load(f)
    r["cpu_seconds"] = cpu
    with open(path, "w") as f:
        json.dump(r, f)
    return r


def run_reference(args, function, dim, evals, seed, path):
    cmd = ["Rscript", os.path.join(HERE, "run_reference.R"), objective_path(args), function,
           str(dim), str(evals), str(seed), args.rlib]
    out = sh(cmd, capture_output=True, text=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    with open(path, "w") as f:
        json.dump(r, f)
    return r


def cached(path, fn):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return fn(path)


def p_value(a, b):
    from scipy.stats import mannwhitneyu
    return mannwhitneyu(a, b, alternative="two-sided").pvalue


def fmt(v):
    return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.4e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--install", action="store_true", help="install the reference, build the objective")
    ap.add_argument("--rlib", default="/tmp/Rlib", help="private R library (and objective.so)")
    ap.add_argument("--rmalschains-src", help="Rmalschains 0.2-10 source folder or tarball")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build-cpu", "chainsaw"))
    ap.add_argument("--runs", default="/tmp/chainsaw-reference-runs")
    ap.add_argument("--label", default="chainsaw", help="runs folder name of the chainsaw side")
    ap.add_argument("--chainsaw-args", default="")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--rows", default=",".join(f"{d}:{e}" for d, e in ROWS))
    ap.add_argument("--sides", default="chainsaw,reference")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--partial", action="store_true",
                    help="no runs: tabulate the seeds that both sides have in --runs (column n)")
    ap.add_argument("--out", help="also write the table here (Markdown) and the values as JSON")
    args = ap.parse_args()
    if args.install:
        install(args)
        return
    rows = [tuple(int(x) for x in r.split(":")) for r in args.rows.split(",")]
    functions = args.functions.split(",")
    sides = args.sides.split(",")
    tasks = []
    for dim, evals in rows:
        for function in functions:
            for seed in range(1, args.seeds + 1):
                for side in sides:
                    folder = os.path.join(args.runs, args.label if side == "chainsaw" else "reference")
                    os.makedirs(folder, exist_ok=True)
                    path = os.path.join(folder, f"{function}-{dim}-{evals}-{seed}.json")
                    fn = run_chainsaw if side == "chainsaw" else run_reference
                    tasks.append(((side, function, dim, evals, seed), path,
                                  lambda p, fn=fn, a=(function, dim, evals, seed): fn(args, *a, p)))
    # The slow reference runs first, so that parallel jobs finish together.
    tasks.sort(key=lambda t: (t[0][0] != "reference", -t[0][2]))
    results = {}
    if args.partial:
        for key, path, _ in tasks:
            if os.path.exists(path):
                with open(path) as f:
                    results[key] = json.load(f)
        tasks = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {key: pool.submit(cached, path, fn) for key, path, fn in tasks}
        for key, fut in futures.items():
            results[key] = fut.result()
    if set(sides) != {"chainsaw", "reference"}:
        return
    lines = [f"| function | D | evals | n | reference mean (sd) | chainsaw mean (sd) | chainsaw / reference "
             f"| p | reference CPU s/run | chainsaw CPU s/run (1 thread) | speed-up |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    values = []
    for dim, evals in rows:
        for function in functions:
            seeds = [s for s in range(1, args.seeds + 1)
                     if ("reference", function, dim, evals, s) in results
                     and ("chainsaw", function, dim, evals, s) in results]
            if len(seeds) < 2:
                continue
            ref = [results[("reference", function, dim, evals, s)] for s in seeds]
            cs = [results[("chainsaw", function, dim, evals, s)] for s in seeds]
            e_ref = [r["best_fitness"] - OPTIMUM for r in ref]
            e_cs = [r["best_fitness"] - OPTIMUM for r in cs]
            t_ref = statistics.mean(r["cpu_seconds"] for r in ref)
            t_obj = statistics.mean(r["objective_seconds"] for r in ref)
            t_cs = statistics.mean(r["cpu_seconds"] for r in cs)
            m_ref, m_cs = statistics.mean(e_ref), statistics.mean(e_cs)
            p = p_value(e_cs, e_ref)
            worse = "" if m_cs <= m_ref or p >= 0.05 else " (worse)"
            lines.append(
                f"| {function} | {dim} | {evals} | {len(seeds)} | {fmt(m_ref)} ({fmt(statistics.stdev(e_ref))}) | "
                f"{fmt(m_cs)} ({fmt(statistics.stdev(e_cs))}) | {m_cs / m_ref:.3f} | {p:.3g}{worse} | "
                f"{t_ref:.2f} (objective, wall: {t_obj:.2f}) | {t_cs:.3f} | {t_ref / t_cs:.1f}x |")
            values.append({"function": function, "dim": dim, "evals": evals, "seeds": seeds,
                           "reference_errors": e_ref, "chainsaw_errors": e_cs, "p": p,
                           "reference_cpu_seconds": [r["cpu_seconds"] for r in ref],
                           "reference_objective_seconds": [r["objective_seconds"] for r in ref],
                           "chainsaw_cpu_seconds": [r["cpu_seconds"] for r in cs]})
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump({"chainsaw_args": args.chainsaw_args, "seeds": args.seeds, "rows": values},
                      f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
