#!/usr/bin/env bash
# Configures and builds chainsaw with Ninja, Release, using every core.
#   scripts/build.sh [BUILD_DIR] [CMAKE_ARGS...] [-- BUILD_ARGS...]
#   scripts/build.sh build-double -DCHAINSAW_DOUBLE=ON
#   scripts/build.sh build -- --target chainsaw
# BUILD_DIR defaults to build/ in the repository. CUDA is used when nvcc is found; nvcc in
# /usr/local/cuda/bin counts even when that directory is not on PATH.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  build_dir=$1
  shift
fi
cmake_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  cmake_args+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the "--"
build_args=("$@")

if [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build "$build_dir" -j "$(nproc)" "${build_args[@]}"
