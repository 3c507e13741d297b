#!/usr/bin/env bash
# What a kernel launch costs beyond its bytes, and what programmatic dependent launch (PDL)
# saves, on the GPU: the read floor of the reduction layout (bench_read_floor), the fitness
# kernels with PDL off and on (CHAINSAW_GPU_POLICY=pdl=off / pdl=on), and the paper's end-to-end
# Rastrigin run with PDL off and on, alternating, REPS times each. Expects a build in BUILD
# (default build/); logs go to $OUT (default ./launch-cost-out).
#   usage: bench/gpu/launch_cost.sh [dims...]     default dims: 1000000 3000000
#   env: BUILD, OUT, REPS (1), EVALS (500000), BENCH_FILTER (fitness functions, a regex),
#        SKIP_FLOOR=1 (no read-floor benchmark)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
out=${OUT:-launch-cost-out}
mkdir -p "$out"
dims=("$@")
[ ${#dims[@]} -gt 0 ] || dims=(1000000 3000000)
filter=${BENCH_FILTER:-'^fitness/(rastrigin|griewank|salomon|discus|sumsquares|schwefel12)/'}

if [ "${SKIP_FLOOR:-0}" != 1 ]; then
  "$build/bench/bench_read_floor" --benchmark_min_time=0.02s \
    --benchmark_out="$out/bench_read_floor.json" --benchmark_out_format=json \
    > "$out/bench_read_floor.log" 2>&1
fi
pdl_policy=(pdl=off pdl=on)  # the logs keep pdl0 and pdl1 in their names
for pdl in 0 1; do
  CHAINSAW_GPU_POLICY=${pdl_policy[$pdl]} "$build/bench/bench_fitness_kernel" \
    --benchmark_min_time=0.05s --benchmark_filter="$filter" \
    --benchmark_out="$out/bench_fitness_pdl$pdl.json" --benchmark_out_format=json \
    > "$out/bench_fitness_pdl$pdl.log" 2>&1
done
for d in "${dims[@]}"; do
  for ((i = 1; i <= ${REPS:-1}; i++)); do
    for pdl in 0 1; do
      CHAINSAW_GPU_POLICY=${pdl_policy[$pdl]} "$build/chainsaw" run --function rastrigin \
        --dim "$d" --evals "${EVALS:-500000}" --seed 1 --backend cuda --quiet --profile \
        --output "$out/e2e_rastrigin_${d}_pdl${pdl}_$i.json"
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
for pdl in (0, 1):
    path = f"{d}/bench_fitness_pdl{pdl}.json"
    if not os.path.exists(path):
        continue
    for b in json.load(open(path))["benchmarks"]:
        print(f"pdl={pdl} {b['name']:<34} {b['us_per_launch']:9.2f} us  {b['pct_of_copy']:5.1f}% of copy")
for path in sorted(glob.glob(f"{d}/e2e_rastrigin_*.json")):
    r = json.load(open(path))
    phases = " ".join(f"{k}={v['seconds']:.2f}" for k, v in r["phases"].items())
    print(f"{os.path.basename(path)}: wall={r['wall_seconds']:.2f}s best={r['best_fitness']!r} | {phases}")
PY
