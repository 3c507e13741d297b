#!/usr/bin/env bash
# Everything the GPU claims of this repository rest on, in one command for the GPU machine:
# build (sm_90), the GPU tests, the fitness-kernel benchmark, and the paper's end-to-end
# experiment (Rastrigin, 500,000 evaluations) at the given dimensions, and the checkpoint
# benchmark and resume check. Logs go to $OUT (or ./gpu-suite-out); bench/results/ keeps the
# copies that were committed, one folder per campaign (see bench/results/README.md).
#   usage: bench/gpu/gpu_suite.sh [dims...]      default dims: 100000 1000000 3000000
#   env: SKIP_BENCH=1 (no fitness-kernel benchmark), E2E=0 (no end-to-end runs),
#        CHECKPOINT=0 (no checkpoint benchmark and resume check), EVALS (500000),
#        BENCH_FILTER (a --benchmark_filter for the fitness-kernel benchmark),
#        CEC_DIMS="100000 1000000" (also the CEC 2010 table at these D), SEEDS (10, for it),
#        CEC_DEADLINE (seconds after the suite's start: the table starts no run after it),
#        CEC_RUNS (a folder of earlier runs/ of the same table, copied in first: it resumes),
#        TARGETS="chainsaw chainsaw_tests bench_checkpoint" (build only these; default all),
#        BITS=1 (also the behaviour-bits record of the GPU build, tests/behaviour_bits.py)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-gpu-suite-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
dims=("$@")
[ ${#dims[@]} -gt 0 ] || [ "${E2E:-1}" = 0 ] || dims=(100000 1000000 3000000)
evals=${EVALS:-500000}

# The GPU machine gets a copy of the tree without .git: pass COMMIT=$(git rev-parse HEAD) along.
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
  echo "commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; } > "$out/machine.txt"
# shellcheck disable=SC2086  # TARGETS is a list of targets
(cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
 ninja -C build -j"$(nproc)" ${TARGETS:-}) > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "built in ${SECONDS} s"

./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests.log" 2>&1
echo "gpu tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -B3 -A8 'Failure' "$out/gpu_tests.log" | head -40

if [ "${BITS:-0}" = 1 ]; then
  python3 tests/behaviour_bits.py ./build/chainsaw cuda tests/data/behaviour/cuda-float32.json \
    > "$out/bits-cuda.log" 2>&1
  echo "behaviour bits: $(tail -1 "$out/bits-cuda.log")"
  grep -i 'fail\|differ' "$out/bits-cuda.log" | head -10
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  ./build/bench/bench_fitness_kernel --benchmark_min_time=0.05s --benchmark_filter="${BENCH_FILTER:-.}" \
    --benchmark_out="$out/bench_fitness.json" --benchmark_out_format=json > "$out/bench_fitness.log" 2>&1
  grep -E '^fitness' "$out/bench_fitness.log" | awk '{print $1, $2, $3, $7, $9}'
fi

# Opt-in: the CEC 2010 table (bench/experiments/cec2010_table.py), e.g. CEC_DIMS="100000 1000000" SEEDS=10.
if [ -n "${CEC_DIMS:-}" ]; then
  mkdir -p "$out/cec2010/runs"
  [ -z "${CEC_RUNS:-}" ] || cp "$CEC_RUNS"/*.json "$out/cec2010/runs/"
  deadline=0
  [ -z "${CEC_DEADLINE:-}" ] || deadline=$((CEC_DEADLINE - SECONDS > 1 ? CEC_DEADLINE - SECONDS : 1))
  # shellcheck disable=SC2086  # CEC_DIMS is a list of dimensions
  if python3 bench/experiments/cec2010_table.py --chainsaw ./build/chainsaw --dims $CEC_DIMS --evals "$evals" \
    --seeds "${SEEDS:-10}" --backend cuda --deadline "$deadline" --out "$out/cec2010" \
    > "$out/cec2010.log" 2>&1; then
    cat "$out/cec2010/cec2010.md"
  else
    tail -5 "$out/cec2010.log"
  fi
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

if [ "${CHECKPOINT:-1}" != 0 ]; then
  # Write and read of a 3e6-D population of 120 slots, from and to device memory.
  CHAINSAW_BENCH_DIR=${CHECKPOINT_DIR:-/tmp} ./build/bench/bench_checkpoint \
    --benchmark_out="$out/bench_checkpoint.json" --benchmark_out_format=json \
    > "$out/bench_checkpoint.log" 2>&1
  grep -E '^BM_' "$out/bench_checkpoint.log"
  # run N + resume to 2N against run 2N, through the CLI on the GPU.
  ck=${CHECKPOINT_DIR:-/tmp}/chainsaw_resume_check.h5
  common=(run --function rastrigin --dim 1000000 --seed 4 --backend cuda --quiet)
  ./build/chainsaw "${common[@]}" --evals 40000 --output "$out/ck_whole.json" &&
  ./build/chainsaw "${common[@]}" --evals 21111 --checkpoint "$ck" --output "$out/ck_part.json" &&
  ./build/chainsaw inspect "$ck" > "$out/ck_inspect.txt" &&
  ./build/chainsaw resume "$ck" --evals 40000 --quiet --output "$out/ck_resumed.json"
  python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
w, r = (json.load(open(f"{d}/ck_{n}.json")) for n in ("whole", "resumed"))
print(f"gpu resume check D=1e6: whole {w['best_fitness']!r} resumed {r['best_fitness']!r} "
      f"identical={w['best_fitness'] == r['best_fitness']} "
      f"resumed_at={r.get('resumed_at_evaluations')}")
PY
  rm -f "$ck"
fi
