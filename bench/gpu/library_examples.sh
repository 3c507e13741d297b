#!/usr/bin/env bash
# The library on the GPU machine: build with the examples (sm_90), the library's GPU tests, the
# separable example on the GPU and the least-squares example (cuSPARSE, 10^6 variables). Logs
# and the examples' output go to $OUT (or ./library-out); bench/results/ keeps committed copies.
#   usage: bench/gpu/library_examples.sh [n = 1000000] [evaluations = 200000]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-library-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
n=${1:-1000000}
evals=${2:-200000}

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
  echo "commit: ${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; } > "$out/machine.txt"
(cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
   -DCHAINSAW_BUILD_EXAMPLES=ON -DCHAINSAW_BUILD_BENCH=OFF &&
 ninja -C build -j"$(nproc)") > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }

./build/tests/chainsaw_tests --gtest_filter='CudaApi*:Api*' > "$out/api_tests.log" 2>&1
echo "api tests: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/api_tests.log" | tr '\n' ' ')"
grep -B3 -A8 'Failure' "$out/api_tests.log" | head -40

./build/examples/example_separable 1000000 200000 | tee "$out/example_separable.txt"
./build/examples/example_least_squares "$n" "$evals" 1 > "$out/example_least_squares.json" \
  2> "$out/example_least_squares.err"
echo "least squares (exit $?): $(cat "$out/example_least_squares.json")"
tail -c 300 "$out/example_least_squares.err"
