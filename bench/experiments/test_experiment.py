#!/usr/bin/env python3
"""ctest of bench/experiments/experiment.py: a tiny CPU grid through the real binary, run twice
(the second run repeats nothing), then `report`; the CSV, tables and PNGs must exist and agree with the
result JSONs. A copy of the CPU runs relabelled as GPU runs with a quarter of the time checks
the speed-up column (the CI machine has no GPU).
  usage: test_experiment.py CHAINSAW_BINARY      exit 77 (skipped) without matplotlib"""
import csv
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "experiment.py")


def fail(message):
    print(f"test_experiment: FAILED: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def runner(*args):
    done = subprocess.run([sys.executable, RUNNER] + list(args), capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"experiment.py {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def main():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("test_experiment: skipped: no matplotlib for", sys.executable)
        sys.exit(77)
    binary = sys.argv[1]
    out = tempfile.mkdtemp(prefix="chainsaw_experiment_")
    try:
        grid = ["run", "--chainsaw", binary, "--functions", "sumsquares", "rastrigin",
                "--dims", "64", "128", "--seeds", "2", "--evals", "1200", "--backends", "cpu",
                "--out", out, "--", "--threads", "1"]
        first = runner(*grid)
        check(first.count(" cpu: running") == 8 and first.count(" s, best ") == 8,
              f"expected 8 runs with their progress lines:\n{first}")
        runs = sorted(os.listdir(os.path.join(out, "runs")))
        check(len(runs) == 8, f"runs/ holds {runs}")
        mtimes = {r: os.path.getmtime(os.path.join(out, "runs", r)) for r in runs}
        second = runner(*grid)
        check(second.count("done before") == 8, f"the second run repeated work:\n{second}")
        check(all(os.path.getmtime(os.path.join(out, "runs", r)) == t for r, t in mtimes.items()),
              "a finished run's file was rewritten")

        # Relabelled copies: the same runs "on the GPU" in a quarter of the time.
        for r in runs:
            with open(os.path.join(out, "runs", r)) as f:
                j = json.load(f)
            j["backend"], j["device"] = "cuda", "fake GPU"
            j["wall_seconds"] /= 4.0
            with open(os.path.join(out, "runs", r.replace("_cpu", "_cuda")), "w") as f:
                json.dump(j, f)

        runner("report", out)
        results = {}
        for r in os.listdir(os.path.join(out, "runs")):
            with open(os.path.join(out, "runs", r)) as f:
                results[r] = json.load(f)
        with open(os.path.join(out, "experiment.csv")) as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == 16, f"CSV has {len(rows)} rows, expected 16")
        for row in rows:
            j = results[os.path.basename(row["file"])]
            check(float(row["best_fitness"]) == j["best_fitness"], f"best_fitness of {row['file']}")
            check(float(row["distance_to_optimum"]) == j["distance_to_optimum"], row["file"])
            check(int(row["dim"]) == j["config"]["dim"] and row["backend"] == j["backend"], row["file"])
            buckets = sum(float(row[f"profile_{k}_seconds"]) for k in
                          ("fitness", "crossover_rng", "distances", "solis_wets_moves", "sort",
                           "transfers", "rng_init", "checkpoint_io", "other"))
            check(abs(buckets - float(row["profile_total_seconds"])) < 1e-9,
                  f"profile buckets of {row['file']} do not add up")

        with open(os.path.join(out, "tables.md")) as f:
            md = f.read()
        for fn in ("sumsquares", "rastrigin"):
            check(f"## {fn}" in md, f"no section for {fn}")
            for dim in (64, 128):
                cpu = [j for j in results.values() if j["config"]["function"] == fn and
                       j["config"]["dim"] == dim and j["backend"] == "cpu"]
                best = [j["best_fitness"] for j in cpu]
                dist = [j["distance_to_optimum"] for j in cpu]
                quality = (f"| {dim} | {statistics.mean(best):.2e} | {statistics.mean(best):.2e} | "
                           f"{statistics.mean(dist):.2e} | {statistics.mean(dist):.2e} |")
                check(quality in md, f"quality row missing: {quality}")
                check(f"| {dim} | " in md and "| 4.0 |" in md, "speed-up 4.0 missing")
            sigma = statistics.stdev([j["best_fitness"] for j in results.values()
                                      if j["config"]["function"] == fn and j["config"]["dim"] == 64
                                      and j["backend"] == "cpu"])
            check(f"{sigma:.2e}" in md, f"σ {sigma:.2e} of {fn} at D=64 missing")
        check("Table 14" in md and "crossover_rng" in md, "no profile table")

        for name in ("speedup.png", "phases_cpu.png", "phases_cuda.png",
                     "convergence_evaluations.png", "convergence_seconds.png"):
            w, h = png_size(os.path.join(out, name))
            check(w > 100 and h > 100, f"{name} is {w}x{h}")
        print("test_experiment: OK")
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
