#!/usr/bin/env bash
# Installs the Debian packages chainsaw builds and tests with (Debian 12 or newer: CMake >= 3.25).
# Idempotent and fast when nothing is missing (no apt-get update then), so the other scripts call
# it every time. CUDA is not installed here: it is optional, and the build picks it up by itself
# when /usr/local/cuda/bin/nvcc exists.
set -euo pipefail

packages=(
  cmake ninja-build g++            # build (g++ brings libgomp, the OpenMP runtime)
  libcli11-dev libfmt-dev nlohmann-json3-dev  # command line, formatting, result JSON
  libhdf5-dev                      # checkpoints
  libtomlplusplus-dev              # study files (chainsaw study)
  liblbfgsb-dev liblapack-dev gfortran  # L-BFGS-B 3.0 for shade-ils, its LAPACK/BLAS and runtime
  libopenmpi-dev openmpi-bin       # distributed runs (--distribute), mpirun for their tests
  libgtest-dev libbenchmark-dev    # tests, benchmarks
  python3 python3-matplotlib       # experiment scripts (matplotlib: the report's plots)
  python3-scipy python3-pandas     # the study report's tests and tables (python/chainsaw/study.py)
  python3-dev pybind11-dev python3-numpy python3-pytest  # the Python module (python/), its tests
  python3-setuptools python3-wheel python3-pip python3-venv  # the README's venv + pip install
  python3-cmaes                    # bench/experiments/sep_cma_compare.py (SepCMA to compare with)
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: no dpkg here (not Debian/Ubuntu); make sure these are installed: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' ok installed$'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]}; run this script as root to install them" >&2
    exit 1
  fi
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
if "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
   "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
     apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  exit 0
fi
# A machine without a package mirror (the GPU machines) may carry the header-only libraries
# staged in .deps/include instead; CMake accepts those and names anything still missing.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -d "$root/.deps/include" ]; then
  echo "install-deps: apt-get failed; going on with the headers staged in .deps/include" >&2
  exit 0
fi
echo "install-deps: could not install ${missing[*]}" >&2
exit 1
