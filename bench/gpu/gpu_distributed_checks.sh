#!/usr/bin/env bash
# Distributed GPU runs at scale on all N GPUs of a machine: a sharded 1e7-D checkpoint (its write
# time and size), resumed on one GPU and on N, compared with the uninterrupted N-GPU run; islands
# on N GPUs run twice (deterministic per seed). Results in $OUT/w (default
# ./distributed-checks-out/w); the campaigns are bench/results/2026-11-23-h200x2/ (N = 2) and
# bench/results/2026-11-26-h200x4/ (N = 4).
# Usage: COMMIT=<sha> bash bench/gpu/gpu_distributed_checks.sh
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=${OUT:-distributed-checks-out}/w; mkdir -p "$W"
{ date -u; echo "commit ${COMMIT:-?}"; nvidia-smi -L; } > $W/machine_checks.txt 2>&1
[ -f build/build.ninja ] || cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  -DCHAINSAW_BUILD_BENCH=OFF -DCHAINSAW_BUILD_TESTS=OFF > $W/cmake_checks.log 2>&1
timeout 300 ninja -C build chainsaw > $W/build_checks.log 2>&1 || { tail -50 $W/build_checks.log; exit 1; }
C="./build/chainsaw run --backend cuda --function rastrigin --seed 4 --dim 10000000 -q"
N=$(nvidia-smi -L | wc -l)
MPI="mpirun -np $N -x NCCL_NVLS_ENABLE=0 --bind-to none"
CK=/tmp/chainsaw_shard_ck.h5
summary() { python3 -c "import json;j=json.load(open('$1'));print(j['best_fitness'],j['evaluations']['total'],round(j['wall_seconds'],2))"; }
timeout 120 $MPI $C --distribute shard --evals 40000 -o $W/ck_whole_${N}gpu.json
echo "uninterrupted $N GPUs, 40000: $(summary $W/ck_whole_${N}gpu.json)"
t0=$(date +%s.%N)
timeout 200 $MPI $C --distribute shard --evals 20000 --checkpoint $CK -o $W/ck_first_${N}gpu.json --profile
t1=$(date +%s.%N)
echo "first half on $N GPUs with its checkpoint: $(summary $W/ck_first_${N}gpu.json), process $(python3 -c "print(round($t1 - $t0, 2))") s, file $(stat -c %s $CK) bytes"
python3 -c "import json;j=json.load(open('$W/ck_first_${N}gpu.json'));print('checkpoint_io s:', j['profile']['buckets']['checkpoint_io']['seconds'])"
timeout 200 ./build/chainsaw resume $CK --evals 40000 -q -o $W/ck_resumed_1gpu.json
echo "resumed on 1 GPU to 40000: $(summary $W/ck_resumed_1gpu.json)"
timeout 60 $MPI ./build/chainsaw resume $CK --distribute shard --evals 40000 -q -o $W/ck_resumed_${N}gpu.json
echo "resumed on $N GPUs to 40000: $(summary $W/ck_resumed_${N}gpu.json)"
rm -f $CK
I="./build/chainsaw run --backend cuda --function griewank --seed 8 --dim 1000000 --evals 30000 --migration-every 5000 -q"
for k in 1 2; do
  timeout 120 $MPI $I --distribute islands -o $W/islands_${N}gpu_$k.json
  python3 -c "import json;j=json.load(open('$W/islands_${N}gpu_$k.json'));d=j['distribute'];print('islands run $k:',j['best_fitness'],'migrations',d['migrations'],'best rank',d['best_rank'])"
done
