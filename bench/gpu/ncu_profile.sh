#!/usr/bin/env bash
# Nsight Compute profiles of the engine's kernels on the GPU machine: one evaluation launch of
# bench_fitness_kernel per function (a batch of 20 at DIM genes), then one launch of each
# engine pass (Solis-Wets move and apply, crossover, NAM distances) taken from a short
# `chainsaw run` of Rastrigin at DIM. Sections: speed of light, occupancy, launch statistics,
# warp states, memory workload. Builds first unless BUILD already holds a build; reports go to
# $OUT (default ./ncu-out) as ncu_eval_<function>.txt and ncu_<kernel>.txt, and the key lines of
# each are printed. ncu locks the SM clock, so its durations are longer than the benchmarks'.
#   usage: bench/gpu/ncu_profile.sh [DIM = 3000000] [functions... = sumsquares rastrigin]
#   env: BUILD (build), OUT (ncu-out), KERNELS ("SwMoveOp SwApplyOp CrossoverOp DistanceOp")
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export PATH=/usr/local/cuda/bin:$PATH
build=${BUILD:-build}
out=${OUT:-ncu-out}
mkdir -p "$out"
dim=${1:-3000000}
shift || true
functions=("$@")
[ ${#functions[@]} -gt 0 ] || functions=(sumsquares rastrigin)

if [ ! -x "$build/chainsaw" ] || [ ! -x "$build/bench/bench_fitness_kernel" ]; then
  (cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
   ninja -C "$build" -j"$(nproc)" chainsaw bench_fitness_kernel) > "$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
fi
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
          --section WarpStateStats --section MemoryWorkloadAnalysis)
for f in "${functions[@]}"; do
  ncu "${sections[@]}" --kernel-name-base demangled --kernel-name regex:EvaluateOp \
    --launch-skip 20 --launch-count 1 "$build/bench/bench_fitness_kernel" \
    --benchmark_filter="fitness/$f/$dim" --benchmark_min_time=0.01s > "$out/ncu_eval_$f.txt" 2>&1
done
for k in ${KERNELS:-SwMoveOp SwApplyOp CrossoverOp DistanceOp}; do
  ncu "${sections[@]}" --kernel-name-base demangled --kernel-name "regex:$k" \
    --launch-skip 30 --launch-count 1 "$build/chainsaw" run --function rastrigin --dim "$dim" \
    --evals 3000 --backend cuda -q -o /dev/null > "$out/ncu_$k.txt" 2>&1
done
for f in "$out"/ncu_*.txt; do
  echo "== $f"
  grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Theoretical Occupancy|Compute \(SM\) Throughput|Block Limit Registers" "$f" | head -12
done
