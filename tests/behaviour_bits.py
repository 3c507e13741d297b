#!/usr/bin/env python3
"""Runs a fixed set of chainsaw runs and compares their results' bits with a recorded set.

    behaviour_bits.py CHAINSAW BACKEND RECORD.json [--record] [--cases PATTERN]

The set covers every algorithm (those without a GPU implementation in the CPU records only), the six
paper functions, three CEC 2010 functions, two sizes, a checkpoint and its resume, and --runs (with --vary-instance: each run on its own seed's
instance, so that one record serves the builds before and after --runs fixed the instance). Each case's best fitness, distance to the optimum and
evaluation count are compared exactly (floats as their hexadecimal form): a refactoring must leave
every one unchanged. --record writes RECORD.json instead (only for a change that is meant to move
results' bits; CHANGELOG.md says which); with --cases, only those cases are written anew. A record names the build it belongs to (backend and gene
type), so one file per build kind lives in tests/data/behaviour/.
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile

PAPER = ["rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"]


# The algorithms of the large-scale literature, at D = 100; those without a GPU implementation
# are in the CPU records only.
LARGE_SCALE = ["sep-cma-es", "shade", "lshade", "mts-ls1", "shade-ils"]
ON_THE_GPU = ["sep-cma-es"]


def cases(backend):
    """(name, argument list, kind) for every case of a backend; kind 'run', 'resume' or 'runs'."""
    out = []
    for dim, evals in ((1000, 6000), (100000, 1200)):
        for fn in PAPER:
            out.append((f"ma-sw-chains/{fn}/{dim}",
                        ["--function", fn, "--dim", str(dim), "--evals", str(evals)], "run"))
    for fn in ("cec2010-f1", "cec2010-f9", "cec2010-f19"):
        out.append((f"ma-sw-chains/{fn}/1000",
                     ["--function", fn, "--dim", "1000", "--evals", "4000"], "run"))
    for alg in ("de", "jde", "pso", "ss"):
        for fn in ("rastrigin", "griewank", "cec2010-f9"):
            for dim, evals in ((1000, 3000), (100000, 600)):
                if fn.startswith("cec") and dim != 1000:
                    continue
                out.append((f"{alg}/{fn}/{dim}",
                            ["--algorithm", alg, "--function", fn, "--dim", str(dim),
                             "--evals", str(evals)], "run"))
    for alg in ("ma-sw-chains", "de"):
        out.append((f"{alg}/resume/rastrigin/1000",
                    ["--algorithm", alg, "--function", "rastrigin", "--dim", "1000",
                     "--evals", "4000"], "resume"))
        out.append((f"{alg}/runs3/sphere-like/1000",
                    ["--algorithm", alg, "--function", "sumsquares", "--dim", "1000",
                     "--evals", "3000", "--runs", "3", "--vary-instance"], "runs"))
    # D = 100, 12000 evaluations: SHADE-ILS's first iteration (its phases of 5000, 5000 and
    # 1000) and the start of its second.
    for alg in LARGE_SCALE if backend == "cpu" else ON_THE_GPU:
        for fn in ("rastrigin", "cec2010-f9"):
            out.append((f"{alg}/{fn}/100",
                        ["--algorithm", alg, "--function", fn, "--dim", "100",
                         "--evals", "12000"], "run"))
        if alg == "lshade":  # its population schedule follows the budget: a resume with a
            continue         # larger one is another run (test_shade_family.cpp resumes it)
        out.append((f"{alg}/resume/rastrigin/100",
                    ["--algorithm", alg, "--function", "rastrigin", "--dim", "100",
                     "--evals", "12000"], "resume"))
    return out


def hexf(value):
    return "null" if value is None else float(value).hex()


def fingerprint(result):
    return {"best_fitness": hexf(result["best_fitness"]),
            "distance": hexf(result.get("distance_to_optimum")),
            "evaluations": result["evaluations"]["total"]}


def run(binary, args, tmp, name):
    out = os.path.join(tmp, name.replace("/", "_") + ".json")
    subprocess.run([binary, "run", "--seed", "3", "--quiet", "-o", out] + args, check=True)
    with open(out) as f:
        return json.load(f)


def measure(binary, backend, name, args, kind, tmp):
    args = args + ["--backend", backend]
    if kind == "run":
        return fingerprint(run(binary, args, tmp, name))
    if kind == "runs":
        result = run(binary, args, tmp, name)
        return [fingerprint(r) for r in result["results"]]
    # resume: stop at half the budget with a checkpoint, then resume to the whole budget.
    evals = int(args[args.index("--evals") + 1])
    half = list(args)
    half[half.index("--evals") + 1] = str(evals // 2)
    ckpt = os.path.join(tmp, name.replace("/", "_") + ".h5")
    run(binary, half + ["--checkpoint", ckpt], tmp, name + "-half")
    out = os.path.join(tmp, name.replace("/", "_") + "-resumed.json")
    subprocess.run([binary, "resume", ckpt, "--evals", str(evals), "--quiet", "-o", out],
                   check=True)
    with open(out) as f:
        resumed = fingerprint(json.load(f))
    whole = fingerprint(run(binary, args, tmp, name + "-whole"))
    return {"resumed": resumed, "whole": whole}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("chainsaw")
    p.add_argument("backend", choices=["cpu", "cuda"])
    p.add_argument("record")
    p.add_argument("--record", dest="write", action="store_true")
    p.add_argument("--cases", default="*", help="only the cases whose name matches (fnmatch)")
    a = p.parse_args()
    if not a.write and not os.path.exists(a.record):
        print(f"behaviour_bits: no record {a.record} for this build kind: skipped")
        return 77
    measured = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, kind in cases(a.backend):
            if fnmatch.fnmatch(name, a.cases):
                measured[name] = measure(a.chainsaw, a.backend, name, args, kind, tmp)
    if a.write:
        if a.cases != "*" and os.path.exists(a.record):  # the other cases stay as recorded
            with open(a.record) as f:
                measured = {**json.load(f), **measured}
        with open(a.record, "w") as f:
            json.dump(measured, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"behaviour_bits: recorded {len(measured)} cases in {a.record}")
        return 0
    with open(a.record) as f:
        recorded = json.load(f)
    failed = [n for n in measured if recorded.get(n) != measured[n]]
    for n in failed:
        print(f"behaviour_bits: {n}: recorded {recorded.get(n)}, now {measured[n]}")
    # Resumes must also equal the uninterrupted run, whatever was recorded.
    for n, m in measured.items():
        if isinstance(m, dict) and "resumed" in m and m["resumed"] != m["whole"]:
            failed.append(n)
            print(f"behaviour_bits: {n}: resumed {m['resumed']} != whole {m['whole']}")
    print(f"{len(measured) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
