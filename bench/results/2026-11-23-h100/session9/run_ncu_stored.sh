#!/usr/bin/env bash
# Session 9, device call 4: where the evaluation's time goes now that it reads o from memory.
# Nsight Compute on the Salomon and Sum Squares evaluations at 1e6-D (batch 20), and the opcode
# mix of their kernels and the hashing ones (cuobjdump). Expects build/; logs go to $OUT.
set -uo pipefail
out=${OUT:?}
export PATH=/usr/local/cuda/bin:$PATH
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis"
for f in salomon sumsquares; do
  ncu $S --kernel-name-base demangled --kernel-name regex:StoredShiftTerm --launch-skip 10 \
    --launch-count 1 ./build/bench/bench_fitness_kernel --benchmark_filter="fitness/$f/1000000" \
    --benchmark_min_time=0.01s > "$out/ncu_eval_${f}_1e6.txt" 2>&1
done
lib=$(find build -name 'libchainsaw*.a' | head -1)
cuobjdump -sass "$lib" > "$out/sass.txt" 2>/dev/null
python3 - "$out/sass.txt" <<'PY' | tee "$out/opcodes.txt"
import re, sys, collections
text = open(sys.argv[1]).read()
funcs = re.split(r"\n\s*Function : ", text)
want = [("StoredShiftTerm", "Salomon"), ("StoredShiftTerm", "SumSquares"),
        ("FitnessTerm", "Salomon"), ("FitnessTerm", "SumSquares")]
for f in funcs[1:]:
    name = f.split("\n", 1)[0]
    for term, fn in want:
        if term in name and fn in name and "EvaluateOp" in name and "produce_reduce" in name and "Li0E" in name:
            ops = collections.Counter(m.group(1).split(".")[0] for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", f))
            print(f"== {term}<{fn}> EvaluateOp: {sum(ops.values())} instructions")
            print("   " + " ".join(f"{k}={v}" for k, v in ops.most_common(28)))
PY
for f in "$out"/ncu_*.txt; do
  echo "== $f"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|Issue Slots Busy|Executed Ipc Active|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|No Eligible|Stall|One or More" "$f" | head -24
done
