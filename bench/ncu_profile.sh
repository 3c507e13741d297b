set -u
export PATH=/usr/local/cuda/bin:$PATH
(cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DCHAINSAW_BUILD_TESTS=ON >/dev/null && ninja -C build -j16 >$OUT/build.log 2>&1) || { tail -30 $OUT/build.log; exit 1; }
./build/tests/chainsaw_tests --gtest_filter='CudaCheckpoint*' 2>&1 | grep -E "OK|FAILED|PASSED" 
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
ncu $S --kernel-name-base demangled --kernel-name regex:EvaluateOp --launch-skip 20 --launch-count 1 ./build/bench/bench_fitness_kernel --benchmark_filter='fitness/sumsquares/3000000' --benchmark_min_time=0.01s > $OUT/ncu_eval_sumsquares.txt 2>&1
ncu $S --kernel-name-base demangled --kernel-name regex:EvaluateOp --launch-skip 20 --launch-count 1 ./build/bench/bench_fitness_kernel --benchmark_filter='fitness/rastrigin/3000000' --benchmark_min_time=0.01s > $OUT/ncu_eval_rastrigin.txt 2>&1
for k in SwMoveOp SwApplyOp CrossoverOp DistanceOp; do
ncu $S --kernel-name-base demangled --kernel-name regex:$k --launch-skip 30 --launch-count 1 ./build/chainsaw run --function rastrigin --dim 3000000 --evals 3000 --backend cuda -q -o /dev/null > $OUT/ncu_$k.txt 2>&1
done
for f in $OUT/ncu_*.txt; do echo "== $f"; grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Theoretical Occupancy|Compute \(SM\) Throughput|Block Limit Registers" $f | head -12; done
