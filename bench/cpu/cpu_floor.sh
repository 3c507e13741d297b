#!/usr/bin/env bash
# The CPU backend against its speed targets (docs/performance.md, "The CPU backend on one core"),
# on the machine it runs on:
#   1. Rastrigin 10^3-D, 50,000 evaluations, one thread: wall and CPU seconds (best of REPS);
#   2. Sum Squares 10^5-D, 20,000 evaluations, --profile, one and two threads: ns per gene per
#      evaluation of each phase (crossover + children's f over the GA's evaluations; Solis-Wets
#      moves + candidates' f over the LS evaluations), and the two-thread speed-up;
#   3. Rastrigin 10^4-D, 100,000 evaluations, one thread, --rho-init reference --batch 1 (the
#      reference's parameters): CPU seconds (best of REPS3).
#   bench/cpu/cpu_floor.sh [CHAINSAW_BINARY] > table.md   (REPS=3 REPS3=1 by default)
# Run it on an otherwise idle machine, or read the CPU seconds: wall time on a shared one
# counts the other jobs' turns too.
set -euo pipefail
bin=${1:-build/chainsaw}
reps=${REPS:-3}
reps3=${REPS3:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best_of N ARGS...: runs chainsaw N times; prints "wall cpu" (seconds) of the run with the least CPU.
best_of() {
  local n=$1
  shift
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" run "$@" > "$tmp/out.json" 2> /dev/null
    awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$tmp/time"
  done | sort -k2 -n | head -1
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: $bin ($("$bin" --version 2> /dev/null | head -1))"
echo
echo "| run | wall s | CPU s |"
echo "|---|---|---|"
read -r wall cpu < <(best_of "$reps" --function rastrigin --dim 1000 --evals 50000 --seed 1 \
  --backend cpu --threads 1)
echo "| Rastrigin 10^3-D, 50,000 evaluations, 1 thread (best of $reps) | $wall | $cpu |"
read -r wall cpu < <(best_of "$reps3" --function rastrigin --dim 10000 --evals 100000 --seed 1 \
  --backend cpu --threads 1 --rho-init reference --batch 1)
echo "| Rastrigin 10^4-D, 100,000 evaluations, 1 thread, --rho-init reference --batch 1 (best of $reps3) | $wall | $cpu |"
echo
echo "| Sum Squares 10^5-D, 20,000 evaluations | threads | run s | crossover + f ns/gene/eval | Solis-Wets + f ns/gene/eval |"
echo "|---|---|---|---|---|"
for threads in 1 2; do
  "$bin" run --function sumsquares --dim 100000 --evals 20000 --seed 1 --backend cpu \
    --threads "$threads" --profile > "$tmp/ss$threads.json" 2> /dev/null
  python3 - "$tmp/ss$threads.json" "$threads" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b, e, dim = d["profile"]["buckets"], d["evaluations"], 100000
# The GA's evaluations beyond the initial population are the children.
children = e["ga"] - d["config"]["population"]
cross = b["crossover_rng"]["seconds"] / (children * dim) * 1e9
sw = b["solis_wets_moves"]["seconds"] / (e["ls"] * dim) * 1e9
print(f"| | {sys.argv[2]} | {d['profile']['run_seconds']:.2f} | {cross:.2f} | {sw:.2f} |")
PY
done
