#!/usr/bin/env bash
# The cost of --profile: the same run with and without it, alternating, REPS times each; prints
# the median wall_seconds of both and the overhead in percent (the target: under 2%).
#   usage: bench/gpu/profile_overhead.sh BINARY REPS chainsaw-run-flags...
#   e.g.   bench/gpu/profile_overhead.sh build/chainsaw 5 --function rastrigin --dim 100000 \
#              --evals 100000 --backend cuda
set -euo pipefail
binary=$1 reps=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for ((i = 1; i <= reps; i++)); do
  "$binary" run "$@" -q -o "$dir/plain_$i.json"
  "$binary" run "$@" -q --profile -o "$dir/profiled_$i.json"
done
python3 - "$dir" "$reps" <<'PY'
import json, statistics, sys
d, reps = sys.argv[1], int(sys.argv[2])
wall = {k: [json.load(open(f"{d}/{k}_{i}.json"))["wall_seconds"] for i in range(1, reps + 1)]
        for k in ("plain", "profiled")}
same = all(json.load(open(f"{d}/plain_{i}.json"))["best_fitness"] ==
           json.load(open(f"{d}/profiled_{i}.json"))["best_fitness"] for i in range(1, reps + 1))
p, q = statistics.median(wall["plain"]), statistics.median(wall["profiled"])
print(f"profile overhead: median wall {p:.4f} s without, {q:.4f} s with --profile: "
      f"{100 * (q - p) / p:+.2f}% ({reps} runs each; walls without {wall['plain']}, "
      f"with {wall['profiled']}); identical results: {same}")
PY
