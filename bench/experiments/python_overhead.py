#!/usr/bin/env python3
"""What a Python objective costs against chainsaw's own evaluation.

  cpu: a NumPy batch callback at 1e5-D against the same objective as a C++ batch callback
       (one thread each; python/src/objective_callbacks.cpp reference_callback): unshifted Rastrigin
       (--objective rastrigin, compute-bound) or max |x - 0.25| (maxabs, memory-bound: the
       per-call cost shows); the whole run's wall time, target <= 1.2x.
  gpu: a PyTorch objective at 1e6-D (the built-in Rastrigin, its shift included) against the
       built-in rastrigin on the CUDA backend, 500,000 evaluations: target <= 1.3x; the best
       fitness of the two agrees to 1e-12 relative.

  PYTHONPATH=build/python python3 bench/experiments/python_overhead.py cpu [--dim 100000 --evals 20000]
  PYTHONPATH=build/python python3 bench/experiments/python_overhead.py gpu [--dim 1000000 --evals 500000]
  PYTHONPATH=build/python python3 bench/experiments/python_overhead.py gpu --replay-floor
  PYTHONPATH=build/python python3 bench/experiments/python_overhead.py gpu --kernels --evals 20000

Each case runs --repeats times (alternating); the fastest run counts (the least disturbed by
other work on the machine; the median is shown too). Prints a Markdown table and
writes --json (all the timings) when given.
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import chainsaw
from chainsaw import _core


def numpy_rastrigin(x):
    z = x.astype(np.float64)
    return (z * z - 10.0 * np.cos(2.0 * math.pi * z) + 10.0).sum(axis=1)


def numpy_maxabs(x):
    return np.max(np.abs(x.astype(np.float64) - 0.25), axis=1)


def cpp_run(objective, dim, evals, seed, backend):
    args = chainsaw._arguments(chainsaw._RUN_SPECS,
                               dict(evals=evals, seed=seed, backend=backend), "bench")
    return chainsaw.Result(_core.run_objective(args, objective, -5.12, 5.12, dim, None, True,
                                               None, False, objective, "", None, False, []))


def timed(run):
    start = time.perf_counter()
    r = run()
    return time.perf_counter() - start, r


def cpu_cases(a):
    common = dict(evals=a.evals, seed=a.seed, backend="cpu")
    fun = numpy_rastrigin if a.objective == "rastrigin" else numpy_maxabs
    return [
        ("C++ batch callback", lambda: cpp_run(a.objective, a.dim, a.evals, a.seed, "cpu")),
        ("NumPy batch callback", lambda: chainsaw.minimize(
            fun, bounds=(-5.12, 5.12), dim=a.dim, name=a.objective, **common)),
    ]


def torch_rastrigin(a):
    """The built-in rastrigin (its shift o from the problem seed, f(o) = -330) in PyTorch."""
    import torch
    o = torch.from_numpy(chainsaw.shift("rastrigin", a.dim, a.seed)).cuda()

    def rastrigin(x):
        z = x.double() - o
        return (z * z - 10.0 * torch.cos(2.0 * math.pi * z) + 10.0).sum(dim=1) - 330.0
    return rastrigin


def gpu_cases(a):
    import torch
    objective = torch_rastrigin(a)
    common = dict(dim=a.dim, evals=a.evals, seed=a.seed, backend="cuda")

    def user(fun, **extra):
        return lambda: chainsaw.minimize(fun, bounds=(-5.12, 5.12), array_module="torch",
                                         name="rastrigin", **common, **extra)
    cases = [("built-in rastrigin", lambda: chainsaw.minimize("rastrigin", **common)),
             ("PyTorch objective, a Python call per evaluation", user(objective)),
             ("PyTorch objective, cuda_graph=True", user(objective, cuda_graph=True))]
    try:  # one fused kernel per call where PyTorch's compiler (Triton) is installed
        compiled = torch.compile(objective, dynamic=False)
        compiled(torch.zeros((1, a.dim), device="cuda"))
        cases.append(("torch.compile'd objective, cuda_graph=True",
                      user(compiled, cuda_graph=True)))
    except Exception as e:  # noqa: BLE001 - any failure means: no compiler here
        print(f"torch.compile unavailable ({type(e).__name__}): that case is left out",
              file=sys.stderr)
    return cases


def replay_floor(a):
    """What one evaluation of the PyTorch Rastrigin costs the GPU alone: one row, captured
    into a CUDA graph and replayed 2,000 times, eager and torch.compile'd."""
    import torch
    rastrigin = torch_rastrigin(a)
    x = torch.rand((1, a.dim), device="cuda") * 10.24 - 5.12
    for name, f in [("eager", rastrigin), ("compiled", torch.compile(rastrigin, dynamic=False))]:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                f(x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            f(x)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(2000):
            graph.replay()
        torch.cuda.synchronize()
        print(f"{name}: {(time.perf_counter() - start) / 2000 * 1e6:.1f} us per replay")
    return 0


def kernels(a):
    """Where a run's GPU time goes, kernel by kernel (torch.profiler: CUPTI sees every kernel
    of the process, chainsaw's and PyTorch's, graph nodes included): the torch.compile'd
    objective with cuda_graph=True and the built-in, --evals evaluations each, after a run
    of the objective that compiles its row counts; with the host loop's phases."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    objective = torch.compile(torch_rastrigin(a), dynamic=False)
    common = dict(dim=a.dim, evals=a.evals, seed=a.seed, backend="cuda")
    user = dict(bounds=(-5.12, 5.12), array_module="torch", name="rastrigin", cuda_graph=True)
    chainsaw.minimize(objective, **common, **user)
    for name, run in [("torch.compile'd objective, cuda_graph=True",
                       lambda: chainsaw.minimize(objective, **common, **user)),
                      ("built-in rastrigin", lambda: chainsaw.minimize("rastrigin", **common))]:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            seconds, r = timed(run)
        phases = ", ".join(f"{k} {v:.3f}" for k, v in r.phases.items() if v > 0)
        print(f"## {name}: {seconds:.3f} s, {r.nfev} evaluations; phases (s): {phases}")
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=16,
                                        max_name_column_width=80))
    return 0


def machine():
    info = {"python": platform.python_version(), "numpy": np.__version__,
            "chainsaw": chainsaw.__version__, "genes": chainsaw.GENES, "cpus": os.cpu_count()}
    try:
        info["cpu"] = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                           if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    # CHAINSAW_COMMIT names the commit where the checkout's own history is not the tree's (a
    # copy of a working tree on another machine).
    info["commit"] = os.environ.get("CHAINSAW_COMMIT")
    try:
        info["commit"] = info["commit"] or subprocess.check_output(
            ["git", "rev-parse", "--short", "HEAD"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        del info["commit"]
    return info


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("which", choices=["cpu", "gpu"])
    p.add_argument("--dim", type=int)
    p.add_argument("--evals", type=int)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--objective", choices=["rastrigin", "maxabs"], default="rastrigin",
                   help="cpu: unshifted Rastrigin (compute-bound) or max |x - 0.25| "
                        "(memory-bound, so the per-call cost shows)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--skip", action="append", default=[],
                   help="leave out the cases whose name contains this text (repeatable)")
    p.add_argument("--json")
    p.add_argument("--replay-floor", action="store_true",
                   help="gpu: only time one evaluation of the PyTorch objective, graph-replayed")
    p.add_argument("--kernels", action="store_true",
                   help="gpu: the GPU time of a run per kernel, PyTorch objective and built-in")
    a = p.parse_args()
    if a.kernels:
        a.dim = a.dim or 1_000_000
        a.evals = a.evals or 20_000
        return kernels(a)
    if a.replay_floor:
        a.dim = a.dim or 1_000_000
        return replay_floor(a)
    if a.which == "cpu":
        a.dim = a.dim or 100_000
        a.evals = a.evals or 20_000
        target = 1.2
        cases = cpu_cases(a)
    else:
        a.dim = a.dim or 1_000_000
        a.evals = a.evals or 500_000
        target = 1.3
        cases = gpu_cases(a)
    cases = [cases[0]] + [c for c in cases[1:] if not any(k in c[0] for k in a.skip)]
    cases[0][1]()  # warm-up (page faults, CUDA context, PyTorch kernels)
    times = {name: [] for name, _ in cases}
    results = {}
    for _ in range(a.repeats):
        for name, run in cases:
            seconds, r = timed(run)
            times[name].append(seconds)
            results[name] = r
    base_name = cases[0][0]
    base = min(times[base_name])
    # The verdict is the fastest user objective's: each case is one way of writing it.
    user_name = min((c[0] for c in cases[1:]), key=lambda n: min(times[n]))
    user = min(times[user_name])
    fb, fu = results[base_name].fun, results[user_name].fun
    rel = abs(fu - fb) / abs(fb) if fb else abs(fu - fb)
    ratio = user / base
    what = f" {a.objective}," if a.which == "cpu" else ""
    print(f"{a.which}:{what} D = {a.dim}, {a.evals} evaluations, seed {a.seed}, "
          f"{a.repeats} runs each")
    print()
    print("| objective | fastest s | median s | runs (s) | best fitness | x the reference |")
    print("|---|---:|---:|---|---:|---:|")
    for name, _ in cases:
        m = min(times[name])
        print(f"| {name} | {m:.3f} | {statistics.median(times[name]):.3f} | "
              f"{', '.join(f'{t:.3f}' for t in times[name])} | {results[name].fun:.17g} | "
              f"{m / base:.3f} |")
    print()
    print(f"ratio {ratio:.3f}, {user_name} (target <= {target}): "
          f"{'MET' if ratio <= target else 'NOT MET'}; "
          f"best fitness relative difference {rel:.3e}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"which": a.which, "objective": a.objective, "dim": a.dim, "evals": a.evals, "seed": a.seed,
                       "repeats": a.repeats, "machine": machine(), "seconds": times,
                       "best_fitness": {n: r.fun for n, r in results.items()},
                       "ratio": ratio, "ratio_case": user_name, "target": target,
                       "relative_difference": rel}, f,
                      indent=2)
    return 0 if ratio <= target else 1


if __name__ == "__main__":
    sys.exit(main())
