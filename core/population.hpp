// The host's view of the population: which slots are members, their fitness, the `order` index
// and each slot's local-search chain record. The genes and bias vectors themselves live in the
// engine (host or device memory); individuals never move, only `order` is re-sorted.
//
// capacity = population_size + batch slots. After a sort, order[0, N) are the members (best
// first) and order[N, N + batch) the padding slots that the next crossover batch writes into.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "localsearch/solis_wets.hpp"

namespace chainsaw {

// What the host loop remembers of the LS chain of the individual in a slot.
struct ChainRecord {
  bool has_chain = false;  // a stored state (bias vector in the engine, scalars here) continues
  bool ls_failed = false;  // its last LS application improved it by less than delta: not in S_LS
  SolisWetsState state;
};

class Population {
 public:
  Population(int population_size, int batch)
      : size_(population_size),
        batch_(batch),
        fitness_(static_cast<size_t>(population_size + batch),
                 std::numeric_limits<double>::infinity()),
        order_(static_cast<size_t>(population_size + batch)),
        chains_(static_cast<size_t>(population_size + batch)) {
    for (int i = 0; i < capacity(); ++i) order_[i] = i;
  }

  int size() const { return size_; }
  int batch() const { return batch_; }
  int capacity() const { return size_ + batch_; }

  int member(int rank) const { return order_[rank]; }           // rank < size()
  int padding_slot(int k) const { return order_[size_ + k]; }   // k < batch()
  int best_slot() const { return order_[0]; }
  double best_fitness() const { return fitness_[order_[0]]; }

  double& fitness(int slot) { return fitness_[slot]; }
  double fitness(int slot) const { return fitness_[slot]; }
  ChainRecord& chain(int slot) { return chains_[slot]; }
  const ChainRecord& chain(int slot) const { return chains_[slot]; }

  std::vector<int>& order() { return order_; }
  const std::vector<int>& order() const { return order_; }
  const std::vector<double>& all_fitness() const { return fitness_; }

 private:
  int size_;
  int batch_;
  std::vector<double> fitness_;
  std::vector<int> order_;
  std::vector<ChainRecord> chains_;
};

// order[0..capacity) = the slots sorted by (fitness, slot), best first: the index-only sort of
// both engines (individuals never move). Doubles are ordered as a radix sort orders their bits
// (-0 before +0), a total order, so ties fall to the slot and every backend sorts alike.
inline void sort_slots_by_fitness(const double* fitness, int capacity, int* order) {
  auto key = [](double f) {
    std::uint64_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
  };
  std::iota(order, order + capacity, 0);
  std::sort(order, order + capacity, [&](int a, int b) {
    const std::uint64_t ka = key(fitness[a]), kb = key(fitness[b]);
    return ka < kb || (ka == kb && a < b);
  });
}

}  // namespace chainsaw
