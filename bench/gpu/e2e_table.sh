#!/usr/bin/env bash
# End-to-end runs with --profile over functions x dimensions, and one Markdown table of their
# wall time, per-phase seconds and achieved bandwidth (docs/profiling.md). The paper's experiment is
# 500,000 evaluations, seed 1. Logs and result JSONs go to $OUT (or ./e2e-out).
#   usage: bench/gpu/e2e_table.sh [--backend cuda|cpu] [--evals N] [--functions "f1 f2"] [--label L]
#                             [--chainsaw PATH] dims...
#   e.g.   bench/gpu/e2e_table.sh --functions "rastrigin sumsquares" 100000 1000000
#   env:   extra `chainsaw run` flags in CHAINSAW_ARGS; CHAINSAW_GPU_POLICY (e.g.
#          pdl=off,sw_moves=separate; docs/performance.md) passes through to the runs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
backend=cuda evals=500000 label=e2e chainsaw=./build/chainsaw
functions="rastrigin griewank salomon discus sumsquares schwefel12"
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --evals) evals=$2; shift 2 ;;
    --functions) functions=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --chainsaw) chainsaw=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: bench/gpu/e2e_table.sh [options] dims..." >&2; exit 2; }
out=${OUT:-e2e-out}
mkdir -p "$out"
for d in "$@"; do
  for f in $functions; do
    # shellcheck disable=SC2086  # CHAINSAW_ARGS is a list of flags
    "$chainsaw" run --function "$f" --dim "$d" --evals "$evals" --seed 1 --backend "$backend" \
      --profile --quiet ${CHAINSAW_ARGS:-} --output "$out/${label}_${f}_${d}.json" \
      > "$out/${label}_${f}_${d}.log" 2>&1 || echo "failed: $f $d (see $out/${label}_${f}_${d}.log)" >&2
  done
done
python3 - "$out" "$label" <<'PY'
import glob, json, os, sys
out, label = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(out, f"{label}_*.json"))):
    r = json.load(open(path))
    b = r["profile"]["buckets"]
    sec = lambda k: b.get(k, {}).get("seconds", 0.0)
    rows.append((r["config"]["function"], int(r["config"]["dim"]), r["wall_seconds"],
                 sec("crossover_rng") + sec("distances"), sec("solis_wets_moves"),
                 sec("sort") + sec("transfers") + sec("other"), r["best_fitness"]))
rows.sort(key=lambda t: (t[1], t[0]))
print(f"| function | D | wall s | crossover+distances s | Solis-Wets s | sort+transfers+other s | best f |")
print("|---|---|---|---|---|---|---|")
for f, d, w, c, s, o, best in rows:
    print(f"| {f} | {d} | {w:.2f} | {c:.2f} | {s:.2f} | {o:.2f} | {best:.10g} |")
PY
