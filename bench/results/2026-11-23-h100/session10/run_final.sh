#!/usr/bin/env bash
# Session 10, device call 5: the commit under test (the evaluation pass in its own shape, o in a
# persisting L2 window, the slot read early). GPU tests, the six fitness kernels at 1e5, 1e6 and
# 3e6 dimensions, the paper's Rastrigin run at 1e6 and 3e6 (its bits must not change:
# 14593139.6762125, 46680055.94514845), then memcheck and racecheck of the evaluation tests.
set -uo pipefail
out=${OUT:?}
logs=$(mktemp -d)
t0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > "$logs/cmake.log" 2>&1
ninja -C build -j16 chainsaw_tests bench_fitness_kernel chainsaw > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$logs/machine.txt"
./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$logs/gpu_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/gpu_tests.log"
./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s \
  --benchmark_filter='^fitness/(rastrigin|griewank|salomon|discus|sumsquares|schwefel12)/' \
  --benchmark_out="$logs/bench_fitness.json" --benchmark_out_format=json > "$logs/bench_fitness.log" 2>&1
echo "bench $(( $(date +%s) - t0 )) s"
for d in 1000000 3000000; do
  ./build/chainsaw run --function rastrigin --dim "$d" --evals 500000 --seed 1 --backend cuda \
    --quiet --profile --output "$logs/e2e_rastrigin_$d.json"
done
python3 - "$logs" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys
d = sys.argv[1]
for b in json.load(open(f"{d}/bench_fitness.json"))["benchmarks"]:
    print(f"{b['name']:<34} {b['us_per_launch']:9.2f} us  {b['pct_of_copy']:5.1f}% of copy")
for path in sorted(glob.glob(f"{d}/e2e_rastrigin_*.json")):
    r = json.load(open(path))
    phases = " ".join(f"{k}={v['seconds']:.2f}" for k, v in r["phases"].items())
    print(f"{os.path.basename(path)}: wall={r['wall_seconds']:.2f}s best={r['best_fitness']!r} | {phases}")
PY
tests='CudaFitness.ABatch*:CudaFitness.TheEvaluations*:CudaApi.User*EvaluatesLikeTheBuiltinBitForBit'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 ./build/tests/chainsaw_tests \
    --gtest_filter="$tests" > "$logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$tool.log" | sort | uniq -c | tr '\n' ' ') $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$tool.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
echo "all $(( $(date +%s) - t0 )) s"
tar -C "$logs" -czf "$out/logs.tgz" .
