#!/usr/bin/env bash
# sep-CMA-ES on the GPU (docs/algorithms.md, sep-cma-es): seconds a generation at D = 10^5,
# 10^6 and 10^7 on rastrigin, from two budgets of the same run (G_SHORT and G_LONG
# generations: their difference leaves out the start-up), and the bytes a generation moves
# in chainsaw's passes (120 + 8 lambda + 4 mu a gene: sampling 16 + 4 lambda, evaluation
# 4 lambda, the update 4 mu + 104) beside the floor of any stored-sample design (4 lambda +
# 4 mu + 64: the samples written once, the mu best read, m, C and both paths read and written).
#   bench/gpu/sep_cma_gpu.sh [CHAINSAW_BINARY] [OUT_DIR]
set -euo pipefail
bin=${1:-build/chainsaw}
out=${2:-sep-cma-gpu-out}
g_short=${G_SHORT:-20}
g_long=${G_LONG:-220}
mkdir -p "$out"
for dim in ${DIMS:-100000 1000000 10000000}; do
  lambda=$(python3 -c "import math; print(4 + int(math.floor(3 * math.log($dim))))")
  for g in "$g_short" "$g_long"; do
    "$bin" run -q --backend cuda --algorithm sep-cma-es --function rastrigin --dim "$dim" \
      --evals $((lambda * g)) --seed 1 -o "$out/rastrigin_${dim}_${g}.json"
  done
  python3 - "$out" "$dim" "$lambda" "$g_short" "$g_long" <<'PY'
import json, sys
out, dim, lam, g1, g2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
a = json.load(open(f"{out}/rastrigin_{dim}_{g1}.json"))
b = json.load(open(f"{out}/rastrigin_{dim}_{g2}.json"))
per = (b["wall_seconds"] - a["wall_seconds"]) / (g2 - g1)
mu = lam // 2
moved, floor = (120 + 8 * lam + 4 * mu) * dim, (4 * lam + 4 * mu + 64) * dim
print(json.dumps({"dim": dim, "lambda": lam, "generations": g2,
                  "wall_seconds": b["wall_seconds"], "seconds_per_generation": per,
                  "GB_per_s_of_passes": moved / per / 1e9, "GB_per_s_of_floor": floor / per / 1e9,
                  "best_error": b.get("best_error"), "device": b.get("device")}))
PY
done
