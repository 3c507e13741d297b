#!/usr/bin/env python3
"""What OpenMP's wait policy costs a CPU run (docs/performance.md, "The CPU backend on one core").

chainsaw lets idle threads sleep where its run would oversubscribe the processors, unless
OMP_WAIT_POLICY or GOMP_SPINCOUNT is set (io/run/threads.hpp). This times whole processes of the
same run under each policy, in turn (A B C A B C ...), so that drift of the machine's speed falls
on all of them alike:
  passive   OMP_WAIT_POLICY=passive (idle threads sleep on a futex)
  spin      GOMP_SPINCOUNT=300000, libgomp's own default (idle threads spin, then sleep)
  active    OMP_WAIT_POLICY=active (idle threads spin)

    bench/cpu/wait_policy.py [--chainsaw build/chainsaw] [--threads 2 16] [--reps 7]

Prints a Markdown table of the median wall seconds and the ratio to passive. Run it on an
idle machine for the idle figures, with other jobs running for the shared-node figures; the
load average before and after is printed with it. Standard library only.
"""
import argparse
import os
import statistics
import subprocess
import time

POLICIES = (("passive", {"OMP_WAIT_POLICY": "passive"}), ("spin", {"GOMP_SPINCOUNT": "300000"}),
            ("active", {"OMP_WAIT_POLICY": "active"}))
# (D, evaluations): a small problem, where parallel regions are short and many, and a large one.
CASES = ((1000, 20000), (100000, 5000))


def timed(cmd, extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(extra_env)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chainsaw", default="build/chainsaw")
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    print(f"processors: {os.cpu_count()}; load before: {os.getloadavg()[0]:.2f}")
    print("| D | evaluations | threads | passive s | spin s | active s | spin/passive | "
          "active/passive |")
    print("|---|---|---|---|---|---|---|---|")
    for dim, evals in CASES:
        for threads in args.threads:
            cmd = [args.chainsaw, "run", "--backend", "cpu", "--function", "rastrigin", "--dim",
                   str(dim), "--evals", str(evals), "--threads", str(threads), "--quiet",
                   "--output", os.devnull]
            for _, env in POLICIES:  # warm-up: page cache, the dynamic loader
                timed(cmd, env)
            walls = {name: [] for name, _ in POLICIES}
            for _ in range(args.reps):
                for name, env in POLICIES:
                    walls[name].append(timed(cmd, env))
            med = {name: statistics.median(w) for name, w in walls.items()}
            print(f"| {dim} | {evals} | {threads} | {med['passive']:.3f} | {med['spin']:.3f} | "
                  f"{med['active']:.3f} | {med['spin'] / med['passive']:.2f} | "
                  f"{med['active'] / med['passive']:.2f} |")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
