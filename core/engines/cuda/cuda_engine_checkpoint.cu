// The CUDA engine's checkpoint copies: a slot's genes or bias vector in blocks, every slot's
// fitness, and the XORWOW states with the layout that says which engines they restore into.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "core/error.hpp"

namespace chainsaw {

// One slice: the plain layout of every earlier checkpoint.
// Solis-Wets steps in short runs draw other normals per state: " sw-lane=" tells them apart.
std::string CudaEngine::Impl::rng_layout() const {
  return "curand-xorwow/v1 states=" + std::to_string(launch.rng_states) +
         (layout.slices > 1 ? " slices=" + std::to_string(layout.slices) : std::string()) +
         (policy.solis_wets.lane_genes != device::kVec
              ? " sw-lane=" + std::to_string(policy.solis_wets.lane_genes)
              : std::string()) +
         " bytes=" + std::to_string(sizeof(curandState));
}

// Pageable copies: checkpoints stream blocks of a few MiB, where the staging copy costs little
// next to the file system. Sharded, every rank sends its part of the range to rank 0, which
// alone writes checkpoints (as the CPU backend's shards do).
void CudaEngine::read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) {
  Impl& m = *impl_;
  const real_t* held = m.slot_array(array, slot);  // from gene m.own.first
  gather_on_root(m.comm, m.slices, first, count, out, [&](const GeneSlice& part, real_t* room) {
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(room, held + (part.first - m.own.first),
                                      sizeof(real_t) * part.count, cudaMemcpyDeviceToHost,
                                      m.stream.get()));
    m.stream.synchronize();
    return static_cast<const real_t*>(room);
  });
}

void CudaEngine::write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                                  const real_t* in) {
  Impl& m = *impl_;
  const GeneSlice part = m.own.part(first, count);
  if (part.count == 0) return;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.slot_array(array, slot) + (part.first - m.own.first),
                                    in + (part.first - first), sizeof(real_t) * part.count,
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
}

void CudaEngine::restore_fitness(const double* fitness) {
  Impl& m = *impl_;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.fitness.data(), fitness, m.fitness.bytes(),
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
  m.host_fitness.assign(fitness, fitness + m.capacity);
}

RngSnapshot CudaEngine::save_rng() {
  Impl& m = *impl_;
  const int ranks = m.comm ? m.comm->size() : 1;
  RngSnapshot s{m.rng_layout(), std::vector<std::uint8_t>(m.rng.bytes() * ranks)};
  std::vector<std::uint8_t> mine(m.comm ? m.rng.bytes() : 0);
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.comm ? mine.data() : s.bytes.data(), m.rng.data(),
                                    m.rng.bytes(), cudaMemcpyDeviceToHost, m.stream.get()));
  m.stream.synchronize();
  // Slice after slice: the bytes of one GPU holding every slice (config.gpu_slices).
  if (m.comm) m.comm->allgatherv(mine.data(), s.bytes.data(),
                                 std::vector<std::size_t>(ranks, m.rng.bytes()));
  return s;
}

void CudaEngine::restore_rng(const RngSnapshot& snapshot) {
  Impl& m = *impl_;
  const std::size_t offset = m.comm ? m.rng.bytes() * m.comm->rank() : 0;
  const std::size_t expected = m.rng.bytes() * (m.comm ? m.comm->size() : 1);
  if (snapshot.layout != m.rng_layout() || snapshot.bytes.size() != expected)
    throw UserError("the checkpoint's random-number state (" + snapshot.layout +
                    ") does not fit this GPU's launch plan (" + m.rng_layout() +
                    "): resume on the same GPU model, with as many GPU slices");
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.rng.data(), snapshot.bytes.data() + offset, m.rng.bytes(),
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
}

}  // namespace chainsaw
