#!/usr/bin/env bash
# Sharded runs on 1 and 2 GPUs (docs/distributed.md, "On GPUs"; the scale-out table of docs/performance.md): builds chainsaw, runs the GPU
# tests, the plain one-slice 3e6-D run (its best fitness must not change), Rastrigin at 1e7-D
# (50,000 evaluations) and 1e8-D (20,000) on 1 GPU, on 2 GPUs (mpirun, NCCL) and on 1 GPU with
# the 2-GPU layout (--gpu-slices 2: the same result as 2 GPUs, bit for bit), compute-sanitizer
# on a sliced run, the 4-rank plan of the 10^9-variable headline and a 10^9-variable run on 2
# GPUs with population 10. Logs and result files go to $OUT/w (default: ./shard-scaling-out/w);
# the campaign of 2026-11-23 is bench/results/2026-11-23-h200x2/.
# Usage, on a machine with 2 GPUs and Open MPI: COMMIT=<sha> bash bench/shard_scaling.sh
set -u
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=${OUT:-shard-scaling-out}/w; mkdir -p "$W"
{ date -u; echo "commit ${COMMIT:-?}"; nvidia-smi; nvidia-smi topo -m; mpirun --version | head -2; } > $W/machine.txt 2>&1
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  -DCHAINSAW_BUILD_BENCH=OFF > $W/cmake.log 2>&1
timeout 300 ninja -C build chainsaw chainsaw_tests > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
timeout 240 ./build/tests/chainsaw_tests --gtest_filter='Cuda*' > $W/gpu_tests.log 2>&1
echo "GPU tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $W/gpu_tests.log | head -20
run() {  # name timeout command...: one run, its result JSON and one summary line
  local name=$1 t=$2; shift 2
  timeout $t "$@" -q -o $W/$name.json > $W/$name.log 2>&1
  echo "$name rc=$? $(python3 -c "import json;j=json.load(open('$W/$name.json'));print(j['best_fitness'],j['wall_seconds'])" 2>/dev/null)"
}
C="./build/chainsaw run --backend cuda --function rastrigin --seed 1"
MPI="mpirun -np 2 -x NCCL_NVLS_ENABLE=0 --bind-to none"
run e2e_rastrigin_3000000_1slice 60 $C --dim 3000000 --evals 500000
for D in 10000000:50000 100000000:20000; do
  d=${D%%:*}; e=${D##*:}
  run scale_${d}_1gpu 60 $C --dim $d --evals $e --profile
  run scale_${d}_2gpu 60 $MPI $C --distribute shard --dim $d --evals $e --profile
  run scale_${d}_1gpu_2slices 60 $C --gpu-slices 2 --dim $d --evals $e --profile
done
S="./build/chainsaw run --backend cuda --gpu-slices 2 --population 10 --batch 5 --ls-intensity 100 -q"
timeout 120 compute-sanitizer --tool memcheck $S --function schwefel12 --dim 100003 --evals 1500 > $W/memcheck_2slices.txt 2>&1
timeout 120 compute-sanitizer --tool racecheck $S --function rastrigin --dim 20011 --evals 400 > $W/racecheck_2slices.txt 2>&1
echo "sanitizers: $(tail -1 $W/memcheck_2slices.txt) / $(tail -1 $W/racecheck_2slices.txt)"
H="--dim 1000000000 --evals 20000 --population 10 --batch 10"
$MPI $C --distribute shard $H --dry-run > $W/plan_1e9_2ranks_pop10.txt 2>&1
# The headline's plan with the paper's population: 4 ranks (2 per GPU here, only to plan).
mpirun -np 4 --oversubscribe -x NCCL_NVLS_ENABLE=0 $C --distribute shard --dim 1000000000 --evals 20000 --dry-run > $W/plan_1e9_4ranks.txt 2>&1
run run_1e9_2gpu_pop10 200 $MPI $C --distribute shard $H --profile
