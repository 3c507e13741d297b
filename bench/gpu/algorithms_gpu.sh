#!/usr/bin/env bash
# The population algorithms' benchmarks (docs/algorithms.md), on the GPU and the
# CPU side by side; results (the result JSONs) go to OUT_DIR.
#   bench/gpu/algorithms_gpu.sh [CHAINSAW_BINARY] [OUT_DIR]
# 1. DE/rand/1/bin, NP 250, CR 0.3, F 0.5, 100-D, 10^7 evaluations (Janssen et al.'s case
#    study 1; their All-GPU iDE: 0.60-1.85 s per function on an RTX 3080; target <= 0.3 s on one
#    H100), on their three functions: rastrigin (the paper's, on [-5.12, 5.12]), rosenbrock and
#    zakharov (on [-100, 100]; docs/functions.md).
# 2. With RUNS25=1: --runs 25 of MA-SW-Chains at 10^3-D with 3e6 evaluations against 25
#    sequential runs (concurrent on one GPU: docs/algorithms.md).
set -euo pipefail
bin=${1:-build/chainsaw}
out=${2:-algorithms-out}
mkdir -p "$out"
for f in rastrigin rosenbrock zakharov; do
  for backend in cuda cpu; do
    evals=10000000
    [ "$backend" = cpu ] && evals=${CPU_EVALS:-10000000}
    "$bin" run -q --backend "$backend" --algorithm de --de-np 250 --de-f 0.5 --de-cr 0.3 \
      --de-crossover bin --function "$f" --dim 100 --evals "$evals" --seed 1 \
      -o "$out/de_${f}_${backend}.json"
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[1], j['backend'], j['wall_seconds'], j['best_error'])" \
      "$out/de_${f}_${backend}.json"
  done
done
for a in jde pso; do
  "$bin" run -q --backend cuda --algorithm "$a" --function rastrigin --dim 100 --evals 10000000 \
    --seed 1 -o "$out/${a}_rastrigin_cuda.json"
done
[ "${RUNS25:-0}" = 1 ] || exit 0
"$bin" run -q --backend cuda --function rastrigin --dim 1000 --evals 3000000 --runs 25 --seed 1 \
  -o "$out/ma_runs25_cuda.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('runs 25:', j['wall_seconds'], 's; sum of runs', sum(r['wall_seconds'] for r in j['results']))" \
  "$out/ma_runs25_cuda.json"
