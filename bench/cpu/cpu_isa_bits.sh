#!/usr/bin/env bash
# Checks that the CPU passes (core/engines/host/host_passes.cpp) give the same bits whatever
# vector width they are compiled for: bench/cpu/isa_bits.cpp built with the load-time versions,
# and with -DCHAINSAW_NO_CPU_CLONES for the baseline, x86-64-v3 (AVX2) and x86-64-v4
# (AVX-512) alone; each prints a hash of every pass's output. The CPU must have AVX-512 for the
# last one. Needs a CPU build (libchainsaw.a):  bench/cpu/cpu_isa_bits.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-std=c++17 -O3 -fopenmp -fno-math-errno -fno-trapping-math -ffp-contract=off -I$root -I$root/include -isystem /usr/include/hdf5/serial"
[ -n "${CHAINSAW_DOUBLE:-}" ] && flags="$flags -DCHAINSAW_DOUBLE=1"
for variant in "load-time:" "baseline:-DCHAINSAW_NO_CPU_CLONES" \
    "x86-64-v3:-DCHAINSAW_NO_CPU_CLONES -march=x86-64-v3" "x86-64-v4:-DCHAINSAW_NO_CPU_CLONES -march=x86-64-v4"; do
  name=${variant%%:*}
  # shellcheck disable=SC2086
  c++ $flags ${variant#*:} "$root/bench/cpu/isa_bits.cpp" "$root/core/engines/host/host_passes.cpp" \
    "$build/libchainsaw.a" -lhdf5_serial -o "$tmp/$name"
  echo "$name $("$tmp/$name")"
done | tee "$tmp/hashes"
[ "$(awk '{print $2}' "$tmp/hashes" | sort -u | wc -l)" = 1 ] && echo "same bits" || { echo "DIFFERENT BITS"; exit 1; }
