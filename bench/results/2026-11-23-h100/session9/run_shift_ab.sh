#!/usr/bin/env bash
# Session 9, device call 1: o hashed per gene (CHAINSAW_SHIFT_IN_MEMORY=0) against o read from a
# device copy (=1, session8/shift_in_memory.patch applied): the Cuda tests with o in memory, the
# six fitness kernels (PDL on, the default) both ways, and the paper's Rastrigin run at 1e6 and
# 3e6 dimensions both ways, alternating. Expects a build in build/; logs go to $OUT.
set -uo pipefail
out=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/machine.txt"
git log -1 --format='%H %s' >> "$out/machine.txt"
CHAINSAW_SHIFT_IN_MEMORY=1 ./build/tests/chainsaw_tests --gtest_filter='Cuda*' \
  > "$out/gpu_tests_shift1.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests_shift1.log"
filter='^fitness/(rastrigin|griewank|salomon|discus|sumsquares|schwefel12)/'
for s in 0 1; do
  CHAINSAW_SHIFT_IN_MEMORY=$s ./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s \
    --benchmark_filter="$filter" --benchmark_out="$out/bench_fitness_shift$s.json" \
    --benchmark_out_format=json > "$out/bench_fitness_shift$s.log" 2>&1
done
for d in 1000000 3000000; do
  for s in 0 1; do
    CHAINSAW_SHIFT_IN_MEMORY=$s ./build/chainsaw run --function rastrigin --dim "$d" \
      --evals 500000 --seed 1 --backend cuda --quiet --profile \
      --output "$out/e2e_rastrigin_${d}_shift$s.json"
  done
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys
d = sys.argv[1]
for s in (0, 1):
    for b in json.load(open(f"{d}/bench_fitness_shift{s}.json"))["benchmarks"]:
        print(f"shift_in_memory={s} {b['name']:<34} {b['us_per_launch']:9.2f} us  {b['pct_of_copy']:5.1f}% of copy")
for path in sorted(glob.glob(f"{d}/e2e_rastrigin_*.json")):
    r = json.load(open(path))
    phases = " ".join(f"{k}={v['seconds']:.2f}" for k, v in r["phases"].items())
    print(f"{os.path.basename(path)}: wall={r['wall_seconds']:.2f}s best={r['best_fitness']!r} | {phases}")
PY
