#!/usr/bin/env bash
# Copies the header-only dependencies (CLI11, nlohmann-json, fmt) into .deps/include, for a
# build machine without Debian's packages (the lent GPU machine has no package manager).
# CMakeLists.txt falls back to .deps/include when find_package does not find them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt .deps/include/
echo "staged into .deps/include: $(ls .deps/include | tr '\n' ' ')"
