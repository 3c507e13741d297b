#!/usr/bin/env bash
# Everything the GPU claims of this repository rest on, in one command for the lent GPU machine:
# build (sm_90), the GPU tests, the fitness-kernel benchmark, and the paper's end-to-end
# experiment (Rastrigin, 500,000 evaluations) at the given dimensions. Logs go to $OUT (or
# ./gpu-suite-out); bench/results/ keeps the copies that were committed.
#   usage: bench/gpu_suite.sh [dims...]      default dims: 100000 1000000 3000000
#   CEC_DIMS="100000 1000000" SEEDS=10 bench/gpu_suite.sh   also the CEC 2010 table
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-suite-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
dims=("$@")
[ ${#dims[@]} -gt 0 ] || dims=(100000 1000000 3000000)
evals=${EVALS:-500000}

# The GPU machine gets a copy of the tree without .git: pass COMMIT=$(git rev-parse HEAD) along.
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
  echo "commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; } > "$out/machine.txt"
(cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
 ninja -C build -j"$(nproc)") > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests.log" 2>&1
echo "gpu tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -B3 -A8 'Failure' "$out/gpu_tests.log" | head -40

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  ./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s \
    --benchmark_out="$out/bench_fitness.json" --benchmark_out_format=json > "$out/bench_fitness.log" 2>&1
  grep -E '^fitness' "$out/bench_fitness.log" | awk '{print $1, $2, $3, $7, $9}'
fi

# Opt-in: the CEC 2010 table (bench/cec2010_table.py), e.g. CEC_DIMS="100000 1000000" SEEDS=10.
if [ -n "${CEC_DIMS:-}" ]; then
  # shellcheck disable=SC2086  # CEC_DIMS is a list of dimensions
  python3 bench/cec2010_table.py --chainsaw ./build/chainsaw --dims $CEC_DIMS --evals "$evals" \
    --seeds "${SEEDS:-10}" --backend cuda --out "$out/cec2010" > "$out/cec2010.log" 2>&1 &&
    cat "$out/cec2010/cec2010.md" || tail -5 "$out/cec2010.log"
fi

for d in "${dims[@]}"; do
  ./build/chainsaw run --function rastrigin --dim "$d" --evals "$evals" --seed 1 --backend cuda \
    --quiet --output "$out/e2e_rastrigin_${d}.json" 2> "$out/e2e_rastrigin_${d}.err"
  python3 - "$out/e2e_rastrigin_${d}.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
phases = " ".join(f"{k}={v['seconds']:.2f}" for k, v in r["phases"].items())
print(f"e2e rastrigin D={r['config']['dim']} evals={r['evaluations']['total']} "
      f"wall={r['wall_seconds']:.2f}s best={r['best_fitness']:.4e} dist={r['distance_to_optimum']:.3e} | {phases}")
PY
done
