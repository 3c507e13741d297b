#!/usr/bin/env bash
# Session 10, device call 1 (branch session10-exp): the evaluation pass's knobs, each read from
# the environment by the experiment build: CHAINSAW_O_L2_PERSIST=1 (o's copy in a persisting L2
# window of the evaluation launches), CHAINSAW_STORED_O_DOUBLE=1 (o's copy widened to double:
# no conversion per gene), CHAINSAW_EVAL_FIT=1 (dynamic shared memory so that no more blocks
# are resident per SM than the launch shape has), CHAINSAW_EVAL_BPS=n (the shape capped at n).
# Builds, runs the GPU tests plain and with the knobs, then the fitness benchmark per variant.
set -uo pipefail
out=${OUT:?}
t0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > "$out/cmake.log" 2>&1
ninja -C build -j16 chainsaw_tests bench_fitness_kernel chainsaw > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/machine.txt"
if [ "${SKIP_TESTS:-0}" = 0 ]; then
./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests.log"
CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1 ./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests_pf.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests_pf.log"
CHAINSAW_STORED_O_DOUBLE=1 ./build/tests/chainsaw_tests --gtest_filter='CudaFitness*:CudaApi.*' > "$out/gpu_tests_d.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests_d.log"
fi
echo "tests done $(( $(date +%s) - t0 )) s"
filter='^fitness/(salomon|discus|sumsquares|schwefel12|rastrigin)/(1000000|3000000)/'
run() {
  local name=$1; shift
  env "$@" ./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s --benchmark_filter="$filter" \
    --benchmark_out="$out/bench_$name.json" --benchmark_out_format=json > "$out/bench_$name.log" 2>&1
}
run base X=0
run persist CHAINSAW_O_L2_PERSIST=1
run double CHAINSAW_STORED_O_DOUBLE=1
run persist_double CHAINSAW_O_L2_PERSIST=1 CHAINSAW_STORED_O_DOUBLE=1
run fit CHAINSAW_EVAL_FIT=1
run persist_fit CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1
run persist_double_fit CHAINSAW_O_L2_PERSIST=1 CHAINSAW_STORED_O_DOUBLE=1 CHAINSAW_EVAL_FIT=1
run persist_fit_bps3 CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1 CHAINSAW_EVAL_BPS=3
run base2 X=0
echo "bench done $(( $(date +%s) - t0 )) s"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, sys
d = sys.argv[1]
names = ["base","persist","double","persist_double","fit","persist_fit","persist_double_fit","persist_fit_bps3","base2"]
rows = {}
for n in names:
    try: bs = json.load(open(f"{d}/bench_{n}.json"))["benchmarks"]
    except Exception as e: print(n, "missing", e); continue
    for b in bs: rows.setdefault(b["name"].replace("/manual_time",""), {})[n] = b["pct_of_copy"]
print("%-28s" % "% of copy", " ".join("%8s" % n[:8] for n in names))
for k, v in rows.items():
    print("%-28s" % k, " ".join("%8.1f" % v[n] if n in v else "%8s" % "-" for n in names))
PY
tar -C "$out" -czf "$out/logs.tgz" --exclude=logs.tgz --exclude=summary.txt . && find "$out" -type f ! -name logs.tgz ! -name summary.txt -delete
