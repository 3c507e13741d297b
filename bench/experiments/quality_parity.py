#!/usr/bin/env python3
"""Quality parity of the GPU and CPU backends.

For each paper function, runs `chainsaw run` with SEEDS seeds on each backend at the given
dimension and budget, then a two-sided Mann-Whitney U test on the best fitness values: the GPU
must not be worse at the 1% level. Writes a Markdown table and the raw values as JSON.

  bench/experiments/quality_parity.py --binary build/chainsaw --dim 100000 --evals 50000 --seeds 10 \
      --out quality_parity.md

--runs DIR keeps every run's result JSON there and skips the runs already in it, so the slow CPU
side can be spread over several device commands; --backends cpu or cuda runs one side only (the
table is written once both sides are complete), --jobs N runs N processes at once, each with
--threads T (default: cores / N) OpenMP threads.

--cpu-values FILE (repeatable) reuses the CPU side of an earlier run's JSON for the functions it
holds: for a change to the GPU backend only, the CPU values are still the CPU backend's (it is
deterministic), and they cost most of the time.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FUNCTIONS = ["rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"]


def run(binary, function, dim, evals, seed, backend, threads, path=None):
    keep = path is not None
    if not keep:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            path = f.name
    elif os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    cmd = [binary, "run", "--function", function, "--dim", str(dim), "--evals", str(evals),
           "--seed", str(seed), "--backend", backend, "--quiet", "--output", path]
    if threads:
        cmd += ["--threads", str(threads)]
    subprocess.run(cmd, check=True)
    with open(path) as f:
        result = json.load(f)
    if not keep:
        os.unlink(path)
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/chainsaw")
    ap.add_argument("--dim", type=int, default=100000)
    ap.add_argument("--evals", type=int, default=50000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--out", default="quality_parity.md")
    ap.add_argument("--cpu-values", action="append", default=[])
    ap.add_argument("--runs", help="folder of per-run result JSONs (resumable)")
    ap.add_argument("--backends", default="cuda,cpu")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    backends = args.backends.split(",")
    if args.runs:
        os.makedirs(args.runs, exist_ok=True)
    threads = args.threads or (max(1, (os.cpu_count() or 1) // args.jobs) if args.jobs > 1 else 0)

    def run_path(fn, backend, seed):
        if not args.runs:
            return None
        return os.path.join(args.runs, f"{fn}_{backend}_{args.dim}_{args.evals}_s{seed}.json")
    reused_cpu = {}
    for path in args.cpu_values:
        with open(path) as f:
            for fn, v in json.load(f).items():
                if len(v["cpu"]) >= args.seeds:
                    reused_cpu[fn] = v["cpu"][:args.seeds]
    from concurrent.futures import ThreadPoolExecutor

    functions = args.functions.split(",")
    results = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for fn in functions:
            for backend in backends:
                if backend == "cpu" and fn in reused_cpu:
                    continue
                for s in range(1, args.seeds + 1):
                    results[fn, backend, s] = pool.submit(
                        run, args.binary, fn, args.dim, args.evals, s, backend,
                        threads if backend == "cpu" else 0, run_path(fn, backend, s))
        results = {k: v.result() for k, v in results.items()}
    if set(backends) != {"cpu", "cuda"}:
        print(f"ran the {args.backends} side; the table needs both", flush=True)
        return 0
    from scipy.stats import mannwhitneyu  # present on the GPU machine

    rows, raw = [], {}
    for fn in functions:
        values = {}
        for backend in ("cuda", "cpu"):
            if backend == "cpu" and fn in reused_cpu:
                values[backend] = [{"best_fitness": v, "wall_seconds": float("nan")}
                                   for v in reused_cpu[fn]]
                continue
            values[backend] = [results[fn, backend, s] for s in range(1, args.seeds + 1)]
        gpu = [r["best_fitness"] for r in values["cuda"]]
        cpu = [r["best_fitness"] for r in values["cpu"]]
        p = mannwhitneyu(gpu, cpu, alternative="two-sided").pvalue
        gpu_better = sorted(gpu)[len(gpu) // 2] < sorted(cpu)[len(cpu) // 2]
        verdict = "equal (not rejected)" if p >= 0.01 else ("GPU better" if gpu_better else "GPU WORSE")
        mean = lambda xs: sum(xs) / len(xs)
        secs = lambda rs: mean([r["wall_seconds"] for r in rs])
        rows.append(f"| {fn} | {mean(cpu):.4e} | {mean(gpu):.4e} | {p:.3g} | {verdict} | "
                    f"{secs(values['cpu']):.2f} | {secs(values['cuda']):.2f} |")
        raw[fn] = {"cpu": cpu, "cuda": gpu, "p_value": p}
        print(rows[-1], flush=True)
    header = (f"Quality parity, D = {args.dim}, {args.evals} evaluations, seeds 1..{args.seeds} per "
              f"backend; two-sided Mann-Whitney U on the best fitness.\n\n"
              "| function | CPU mean best | GPU mean best | p | verdict (1%) | CPU s/run | GPU s/run |\n"
              "|---|---|---|---|---|---|---|\n")
    with open(args.out, "w") as f:
        f.write(header + "\n".join(rows) + "\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(raw, f, indent=1)
    return 0 if all("WORSE" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
