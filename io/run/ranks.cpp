#include "io/run/ranks.hpp"

#include <fmt/format.h>

#include "core/distributed/agreement.hpp"
#include "io/checkpoint/checkpoint.hpp"

namespace chainsaw {

void Ranks::agree(const std::function<void()>& step) const {
  if (comm) {
    chainsaw::agree(*comm, step);
  } else {
    step();
  }
}

std::string Ranks::checkpoint_path(const std::string& path) const {
  return islands() && !path.empty() ? island_checkpoint_path(path, rank()) : path;
}

std::string Ranks::resume_command(const std::string& path) const {
  if (!comm) return "chainsaw resume " + path;
  return fmt::format("mpirun -np {} chainsaw resume {} --distribute {}", size(), path,
                     distribute_name(mode));
}

}  // namespace chainsaw
