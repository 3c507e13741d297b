#!/usr/bin/env bash
# THE test command (README, CI): installs the dependencies, builds chainsaw twice -- float32
# genes (the default) in build/ and float64 genes (-DCHAINSAW_DOUBLE=ON) in build-double/ --
# and runs the whole test suite on each. The float64 build skips the benchmarks: CI has two
# cores and 90 minutes.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/install-deps.sh"

status=0
run_suite() {  # name build_dir cmake_args...
  local name=$1 dir=$2
  shift 2
  echo "=== chainsaw tests, $name genes ($dir) ==="
  # Tests ON explicitly: a build dir configured earlier without them keeps its cache.
  bash "$root/scripts/build.sh" "$dir" -DCHAINSAW_BUILD_TESTS=ON "$@"
  # Serial: the tests use OpenMP on every core already, and oversubscribed OpenMP spins.
  if ! ctest --test-dir "$dir" --output-on-failure --no-tests=error; then
    status=1
  fi
}

run_suite float32 "$root/build" -DCHAINSAW_DOUBLE=OFF
run_suite float64 "$root/build-double" -DCHAINSAW_DOUBLE=ON -DCHAINSAW_BUILD_BENCH=OFF

if [ $status -ne 0 ]; then
  echo "=== chainsaw tests FAILED (see the ctest output above) ===" >&2
else
  echo "=== chainsaw tests passed: float32 and float64 ==="
fi
exit $status
