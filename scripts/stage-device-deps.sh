#!/usr/bin/env bash
# Copies the header-only dependencies (CLI11, nlohmann-json, fmt, toml++; pybind11 for the Python
# module when pybind11-dev is installed) into .deps/include, for a
# build machine without Debian's packages (the lent GPU machine has no package manager).
# CMakeLists.txt falls back to .deps/include when find_package does not find them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt /usr/include/toml++ .deps/include/
if [ -d /usr/include/pybind11 ]; then cp -r /usr/include/pybind11 .deps/include/; fi
echo "staged into .deps/include: $(ls .deps/include | tr '\n' ' ')"
