#!/usr/bin/env bash
# THE main command (README): installs the dependencies, builds chainsaw and runs the default
# experiment, writing results/<name>.json.
#   GPU (CUDA built and a device present): Rastrigin, D = 10^6, 500,000 evaluations (the paper's budget).
#   CPU otherwise: Rastrigin, D = 10^5, 100,000 evaluations -- a real run that takes a few
#   minutes on two cores, where the paper's budget at 10^5 would take about half an hour.
# A checkpoint goes to results/<name>.h5 every minute and on Ctrl-C; continue an interrupted run
# with: build/chainsaw resume results/<name>.h5 --output results/<name>.json
# Extra arguments are passed to `chainsaw run` (e.g. --seed 2, --threads 4).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" "$build_dir" -DCHAINSAW_DOUBLE=OFF -- --target chainsaw

gpu=no
if grep -q '^CHAINSAW_CUDA:BOOL=ON$' "$build_dir/CMakeCache.txt" &&
   command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu=yes
fi
if [ $gpu = yes ]; then
  args=(--function rastrigin --dim 1000000 --evals 500000 --backend auto)
  name=rastrigin-d1000000-e500000-gpu
else
  args=(--function rastrigin --dim 100000 --evals 100000 --backend cpu)
  name=rastrigin-d100000-e100000-cpu
fi

mkdir -p "$root/results"
output="$root/results/$name.json"
checkpoint="$root/results/$name.h5"
args+=(--checkpoint "$checkpoint" --checkpoint-every 1m)
echo "run-experiment: chainsaw run ${args[*]} $*"
status=0
"$build_dir/chainsaw" run "${args[@]}" --output "$output" "$@" || status=$?
if [ $status -ne 0 ]; then
  [ -f "$checkpoint" ] &&
    echo "run-experiment: continue with: $build_dir/chainsaw resume $checkpoint --output $output"
  exit $status
fi
echo "run-experiment: result written to $output"
