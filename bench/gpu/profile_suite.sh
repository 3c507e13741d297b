#!/usr/bin/env bash
# The profiler's GPU measurements, for a GPU machine, in two parts that each fit
# one 10-minute command (outputs under $OUT, or ./profile-suite-out):
#   bench/gpu/profile_suite.sh kernels  build (sm_90), the GPU tests, the engine-operation and
#                                       fitness benchmarks, the --profile overhead and profiled
#                                       500,000-evaluation Rastrigin runs at 1e5, 1e6, 3e6 (Table 14)
#   bench/gpu/profile_suite.sh grid     build, then the reduced experiment grid
#                                       (bench/experiments/experiment.py run --preset reduced),
#                                       stopped at DEADLINE seconds (330); EXPERIMENT_DIR=folder
#                                       continues an earlier partial grid
# `report` needs matplotlib, which the GPU machine lacks: run it where the files come back,
#   bench/experiments/experiment.py report <files>/experiment
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-profile-suite-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; date -u
  echo "commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; } > "$out/machine.txt"
(cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
 ninja -C build -j"$(nproc)") > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

case "${1:-}" in
kernels)
  ./build/tests/chainsaw_tests --gtest_filter='Cuda*' > "$out/gpu_tests.log" 2>&1
  echo "gpu tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log" | tr '\n' ' ')"
  grep -B3 -A8 'Failure' "$out/gpu_tests.log" | head -40
  ./build/bench/bench_engine_ops --benchmark_filter='^gpu/' --benchmark_min_time=0.05s \
    --benchmark_out="$out/bench_engine_ops.json" --benchmark_out_format=json \
    > "$out/bench_engine_ops.log" 2>&1
  grep -E '^gpu/' "$out/bench_engine_ops.log" | awk '{print $1, $2, $3, $7, $9}'
  ./build/bench/bench_fitness_kernel --benchmark_filter='^fitness/' --benchmark_min_time=0.05s \
    --benchmark_out="$out/bench_fitness.json" --benchmark_out_format=json \
    > "$out/bench_fitness.log" 2>&1
  grep -E '^fitness/' "$out/bench_fitness.log" | awk '{print $1, $2, $3, $7, $9}' | head -20
  for d in 100000 1000000; do
    bench/gpu/profile_overhead.sh build/chainsaw 5 --function rastrigin --dim "$d" --evals 100000 \
      --backend cuda | tee -a "$out/profile_overhead.txt"
  done
  for d in 100000 1000000 3000000; do
    ./build/chainsaw run --function rastrigin --dim "$d" --evals 500000 --seed 1 --backend cuda \
      --profile --output "$out/profile_rastrigin_${d}.json" 2> "$out/profile_rastrigin_${d}.txt"
    cat "$out/profile_rastrigin_${d}.txt"
  done
  ;;
grid)
  # EXPERIMENT_DIR: a folder of runs to continue (e.g. the runs/ of an earlier partial grid);
  # the finished runs are copied to $OUT/experiment either way.
  dir=${EXPERIMENT_DIR:-$out/experiment}
  python3 bench/experiments/experiment.py run --preset reduced --chainsaw build/chainsaw \
    --out "$dir" --deadline "${DEADLINE:-330}" -- --threads "$(nproc)" > "$out/experiment.log" 2>&1
  [ "$dir" = "$out/experiment" ] || cp -r "$dir" "$out/experiment"
  tail -5 "$out/experiment.log"
  ;;
*)
  echo "usage: bench/gpu/profile_suite.sh kernels|grid" >&2
  exit 2
  ;;
esac
