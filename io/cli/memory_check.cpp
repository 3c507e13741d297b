#include "io/cli/memory_check.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/gpu/device_info.hpp"
#include "core/engines/host/host_engine.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/cuda_engine.hpp"
#endif
#include "fitness/cec2010/cec2010.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"
#include "io/cli/exit_codes.hpp"

namespace chainsaw::cli {

namespace {

// The CPU backend's allocations: genes and a Solis-Wets bias vector per slot (HostEngine), and
// three working vectors of D genes; a CEC 2010 instance adds o, P and P's inverse.
struct HostMemoryPlan {
  double genes = 0.0;
  double bias = 0.0;
  double scratch = 0.0;
  double total() const { return genes + bias + scratch; }
};

// shard_ranks > 1: one rank of a sharded run, which holds its slice of every vector (rank 0's,
// the largest); CEC 2010 instances are never sharded.
HostMemoryPlan host_memory_plan(const Config& c, int shard_ranks) {
  const auto held = static_cast<double>(host_shard_slice(c.dim, 0, shard_ranks).count);
  const double slots = static_cast<double>(c.capacity()) * held * sizeof(real_t);
  const double per_gene = sizeof(real_t) + 2 * sizeof(std::int32_t);  // o, P, P's inverse
  const double instance =
      cec2010_number(function_info(c.function).id) != 0 ? static_cast<double>(c.dim) * per_gene : 0.0;
  return {slots, slots, 3.0 * held * sizeof(real_t) + instance};
}

// Physical memory in bytes; 0 when the system does not say.
double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                     : 0.0;
}

}  // namespace

// Refuse up front what cannot fit rather than be killed by the kernel half-way through the
// allocation.
void check_host_memory(const Config& c, int shard_ranks) {
  const double available = physical_memory_bytes();
  const double needed = host_memory_plan(c, shard_ranks).total();
  if (available <= 0.0 || needed <= available) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw UserError(fmt::format(
      "--dim = {}: the CPU backend needs {:.1f} GiB ({} slots of genes and Solis-Wets bias), "
      "this machine has {:.1f} GiB",
      c.dim, needed / kGiB, c.capacity(), available / kGiB));
}

// --dry-run: what the run would allocate, by purpose, against what the machine has.
// print: false on the other ranks of a distributed run, which only return the verdict.
// shard_ranks > 1: the plan of one rank of a sharded run.
int dry_run(const Config& c, [[maybe_unused]] Backend backend, bool print, int shard_ranks) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  [[maybe_unused]] const Problem problem =
      make_problem(c);
  const HostMemoryPlan host = host_memory_plan(c, shard_ranks);
  double genes = host.genes, bias = host.bias, rng = 0.0, scratch = host.scratch;
  double available = 0.0, total = 0.0;
  std::string where;
#if defined(CHAINSAW_CUDA)
  if (backend == Backend::kCuda) {
    const DeviceMemoryPlan plan = plan_device_memory(c, problem, shard_ranks);
    const DeviceInfo device = query_cuda_device();
    genes = static_cast<double>(plan.genes);
    bias = static_cast<double>(plan.bias);
    rng = static_cast<double>(plan.rng_states);
    scratch = static_cast<double>(plan.scratch);
    available = static_cast<double>(device.free_memory);
    total = static_cast<double>(device.total_memory);
    where = "cuda, " + device.name;
  }
#endif
  if (where.empty()) {
    available = total = physical_memory_bytes();
    where = "cpu, host memory";
  }
  if (shard_ranks > 1) where += fmt::format(", each of {} shard ranks", shard_ranks);
  const double needed = genes + bias + rng + scratch;
  // Genes and bias grow with D, the rest barely: the largest D whose slots fit what is left.
  const double per_dim = (genes + bias) / static_cast<double>(c.dim);
  const double largest_dim = (available - rng - scratch) / per_dim;
  if (print)
    std::printf(
      "memory plan (%s): %d slots x D = %lld, %s genes\n"
      "  genes        %10.3f GiB\n  bias vectors %10.3f GiB\n  RNG states   %10.3f GiB\n"
      "  scratch      %10.3f GiB\n  total        %10.3f GiB of %.3f GiB available (%.3f GiB in all): %s\n"
      "  largest D that fits with these settings: about %.3e\n",
      where.c_str(), c.capacity(), static_cast<long long>(c.dim), sizeof(real_t) == 4 ? "float32" : "float64",
      genes / kGiB, bias / kGiB, rng / kGiB, scratch / kGiB, needed / kGiB, available / kGiB,
      total / kGiB, needed <= available ? "fits" : "DOES NOT FIT", largest_dim);
  return needed <= available ? 0 : kExitUserError;
}

}  // namespace chainsaw::cli
