#!/usr/bin/env bash
# Sharded runs on 1, 2 and every GPU of the machine (docs/distributed.md, "On GPUs"; the
# scale-out table of docs/performance.md): builds chainsaw, runs the GPU tests, Rastrigin at
# 1e7-D (50,000 evaluations) and 1e8-D (20,000) on 1 GPU, on 2 and on all N GPUs (mpirun, NCCL)
# and on 1 GPU with the N-GPU layout (--gpu-slices N: the same result as N GPUs, bit for bit),
# compute-sanitizer on a sliced run, and the 10^9-variable headline: its plan, and its run with
# the paper's population on 4 GPUs where the machine has them (else population 10 on 2 GPUs).
# Logs and result files go to $OUT/w (default: ./shard-scaling-out/w); the campaigns are
# bench/results/2026-11-23-h200x2/ and bench/results/2026-11-26-h200x4/.
# Usage, on a machine with 2 or more GPUs and Open MPI: COMMIT=<sha> bash bench/gpu/shard_scaling.sh
#   E2E=1      also the plain one-slice 3e6-D run (its best fitness must not change)
#   TESTS=0    skip the GPU tests;  HEADLINE=0  skip the 10^9-variable run
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=${OUT:-shard-scaling-out}/w; mkdir -p "$W"
N=$(nvidia-smi -L | wc -l)
COUNTS=2; [ "$N" -gt 2 ] && COUNTS="2 $N"
{ date -u; echo "commit ${COMMIT:-?}"; nvidia-smi; nvidia-smi topo -m; mpirun --version | head -2; } > $W/machine.txt 2>&1
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  -DCHAINSAW_BUILD_BENCH=OFF > $W/cmake.log 2>&1
timeout 400 ninja -C build chainsaw chainsaw_tests > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
if [ "${TESTS:-1}" = 1 ]; then
  timeout 300 ./build/tests/chainsaw_tests --gtest_filter='Cuda*' > $W/gpu_tests.log 2>&1
  echo "GPU tests rc=$?"; grep -E "^\[  (PASSED|FAILED|  SKIPPED)|FAILED  \]|SKIPPED \]" $W/gpu_tests.log | head -20
fi
run() {  # name timeout command...: one run, its result JSON and one summary line
  local name=$1 t=$2; shift 2
  timeout $t "$@" -q -o $W/$name.json > $W/$name.log 2>&1
  echo "$name rc=$? $(python3 -c "import json;j=json.load(open('$W/$name.json'));print(j['best_fitness'],j['wall_seconds'])" 2>/dev/null)"
}
C="./build/chainsaw run --backend cuda --function rastrigin --seed 1"
mpi() { echo "mpirun -np $1 -x NCCL_NVLS_ENABLE=0 --bind-to none"; }
[ "${E2E:-0}" = 1 ] && run e2e_rastrigin_3000000_1slice 60 $C --dim 3000000 --evals 500000
for D in 10000000:50000 100000000:20000; do
  d=${D%%:*}; e=${D##*:}
  run scale_${d}_1gpu 60 $C --dim $d --evals $e --profile
  for P in $COUNTS; do run scale_${d}_${P}gpu 60 $(mpi $P) $C --distribute shard --dim $d --evals $e --profile; done
  run scale_${d}_1gpu_${N}slices 60 $C --gpu-slices $N --dim $d --evals $e --profile
done
S="./build/chainsaw run --backend cuda --gpu-slices $N --population 10 --batch 5 --ls-intensity 100 -q"
timeout 120 compute-sanitizer --tool memcheck $S --function schwefel12 --dim 100003 --evals 1500 > $W/memcheck_${N}slices.txt 2>&1
timeout 120 compute-sanitizer --tool racecheck $S --function rastrigin --dim 20011 --evals 400 > $W/racecheck_${N}slices.txt 2>&1
echo "sanitizers: $(tail -1 $W/memcheck_${N}slices.txt) / $(tail -1 $W/racecheck_${N}slices.txt)"
[ "${HEADLINE:-1}" = 1 ] || exit 0
# The headline: 10^9 variables with the paper's 50 + 20 slots need 4 ranks of an H200's memory.
H="--dim 1000000000 --evals 20000"
if [ "$N" -ge 4 ]; then
  $(mpi 4) $C --distribute shard $H --dry-run > $W/plan_1e9_4gpu.txt 2>&1
  run run_1e9_4gpu 400 $(mpi 4) $C --distribute shard $H --profile
else
  H="$H --population 10 --batch 10"
  $(mpi 2) $C --distribute shard $H --dry-run > $W/plan_1e9_2ranks_pop10.txt 2>&1
  # The headline's plan only: 4 ranks, 2 per GPU.
  mpirun -np 4 --oversubscribe -x NCCL_NVLS_ENABLE=0 $C --distribute shard --dim 1000000000 --evals 20000 --dry-run > $W/plan_1e9_4ranks.txt 2>&1
  run run_1e9_2gpu_pop10 200 $(mpi 2) $C --distribute shard $H --profile
fi
