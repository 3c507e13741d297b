#!/usr/bin/env bash
# Session 9, device call 2: the evaluation pass reading o from its device copy (the commit under
# test), the fused passes hashing it. GPU tests, memcheck of the fitness tests, the six fitness
# kernels (PDL on, the default), and the paper's Rastrigin run at 1e6 and 3e6 dimensions, which
# must keep their bits (14593139.6762125, 46680055.94514845). Expects build/; logs go to $OUT.
set -uo pipefail
out=${OUT:?}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/machine.txt"
git log -1 --format='%H %s' >> "$out/machine.txt"
./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/gpu_tests.log"
compute-sanitizer --tool memcheck --error-exitcode 3 ./build/tests/chainsaw_tests \
  --gtest_filter='CudaFitness.OptimumIs*:CudaFitness.ABatch*' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -c 'ERROR SUMMARY: 0 errors' "$out/memcheck.log") clean summaries"
./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s \
  --benchmark_filter='^fitness/(rastrigin|griewank|salomon|discus|sumsquares|schwefel12)/' \
  --benchmark_out="$out/bench_fitness.json" --benchmark_out_format=json > "$out/bench_fitness.log" 2>&1
for d in 1000000 3000000; do
  ./build/chainsaw run --function rastrigin --dim "$d" --evals 500000 --seed 1 --backend cuda \
    --quiet --profile --output "$out/e2e_rastrigin_$d.json"
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys
d = sys.argv[1]
for b in json.load(open(f"{d}/bench_fitness.json"))["benchmarks"]:
    print(f"{b['name']:<34} {b['us_per_launch']:9.2f} us  {b['pct_of_copy']:5.1f}% of copy")
for path in sorted(glob.glob(f"{d}/e2e_rastrigin_*.json")):
    r = json.load(open(path))
    phases = " ".join(f"{k}={v['seconds']:.2f}" for k, v in r["phases"].items())
    print(f"{os.path.basename(path)}: wall={r['wall_seconds']:.2f}s best={r['best_fitness']!r} | {phases}")
PY
