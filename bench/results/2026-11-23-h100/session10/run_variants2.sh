#!/usr/bin/env bash
# Session 10, device call 3 (branch session10-exp, the commit under test): as run_variants.sh,
# plus CHAINSAW_EVAL_EARLY=1 (the row's slot read before the previous grid is awaited) and the
# per-function index as a double (Sum Squares: one integer conversion per lane run, not per
# gene). GPU tests plain and with every knob on, then the fitness benchmark per variant.
set -uo pipefail
out=${OUT:?}
logs=$(mktemp -d)
t0=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > "$logs/cmake.log" 2>&1
ninja -C build -j16 chainsaw_tests bench_fitness_kernel chainsaw > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$logs/machine.txt"
./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$logs/gpu_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$logs/gpu_tests.log"
CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1 CHAINSAW_EVAL_EARLY=1 ./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$logs/gpu_tests_pfe.log" 2>&1
grep -E '^\[  (PASSED|FAILED) ' "$logs/gpu_tests_pfe.log"
echo "tests done $(( $(date +%s) - t0 )) s"
filter='^fitness/(salomon|discus|sumsquares|schwefel12)/(1000000|3000000)/'
names=()
run() {
  local name=$1; shift
  names+=("$name")
  env "$@" ./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s --benchmark_filter="$filter" \
    --benchmark_out="$logs/bench_$name.json" --benchmark_out_format=json > "$logs/bench_$name.log" 2>&1
}
run base X=0
run persist_fit CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1
run persist_fit_early CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_FIT=1 CHAINSAW_EVAL_EARLY=1
run early CHAINSAW_EVAL_EARLY=1
run persist_early CHAINSAW_O_L2_PERSIST=1 CHAINSAW_EVAL_EARLY=1
echo "bench done $(( $(date +%s) - t0 )) s"
grep -h "o L2 window" "$logs"/bench_persist_fit.log | head -2
python3 - "$logs" "${names[@]}" <<'PY' | tee "$out/summary.txt"
import json, sys
d, names = sys.argv[1], sys.argv[2:]
rows = {}
for n in names:
    try: bs = json.load(open(f"{d}/bench_{n}.json"))["benchmarks"]
    except Exception as e: print(n, "missing", e); continue
    for b in bs: rows.setdefault(b["name"].replace("/manual_time",""), {})[n] = (b["pct_of_copy"], b["us_per_launch"])
print("%-28s" % "% of copy (us)", " ".join("%16s" % n[:16] for n in names))
for k, v in rows.items():
    print("%-28s" % k, " ".join("%7.1f (%6.2f)" % v[n] if n in v else "%16s" % "-" for n in names))
PY
tar -C "$logs" -czf "$out/logs.tgz" .
