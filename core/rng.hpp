// Counter-based random numbers for the CPU backend and the host loop.
//
// Every random draw is a pure function of a 64-bit key: the key of a work chunk is derived from
// (run seed, purpose, operation counter, chunk index), so the numbers a gene sees do not depend on
// which thread runs its chunk, and the whole generator state of a run is a handful of counters
// (trivial to checkpoint). SplitMix64 is the generator; its output passes BigCrush.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/types.hpp"

namespace chainsaw {

CHAINSAW_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A key for an independent stream: different (a, b, c, d) give unrelated streams.
CHAINSAW_HD std::uint64_t derive_key(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0,
                                     std::uint64_t d = 0) {
  std::uint64_t h = mix64(a + 0x9e3779b97f4a7c15ULL);
  h = mix64(h ^ (b + 0x632be59bd9b4e019ULL));
  h = mix64(h ^ (c + 0x85157af5d7a1e5b3ULL));
  return mix64(h ^ (d + 0xd6e8feb86659fd93ULL));
}

// Purposes of streams, so that no two uses of the same seed ever share numbers.
enum class RngPurpose : std::uint64_t {
  kHostDecisions = 1,  // parent choice, mutation draws, random LS member
  kInitialGenes = 2,
  kCrossover = 3,
  kSolisWets = 4,
  kShift = 5,  // the optimum's position o
  kRestart = 6,
  kCecPermutation = 7,  // CEC 2010 instances: P
  kCecRotation = 8,     // and M (o uses kShift)
  kIsland = 9,          // --distribute islands: the seed of island r > 0
  kSchwefelMatrix = 10,  // Schwefel 2.6 / 2.13: the integer matrices, a stream per row
  kEtcMatrix = 11,       // the task-scheduling ETC matrix, a stream per task
  kCec2013Weights = 12,  // CEC 2013 instances: the groups' weights (P and R as CEC 2010's)
};

class CounterRng {
 public:
  CHAINSAW_HD explicit CounterRng(std::uint64_t key = 0) : state_(key) {}

  CHAINSAW_HD std::uint64_t next_u64() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  // Uniform in [0, 1) with 53 random bits.
  CHAINSAW_HD double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Standard normal by Box-Muller; the second value of each pair is kept for the next call.
  CHAINSAW_HD double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform();
    const double u2 = uniform();
    if (u1 < 0x1.0p-60) u1 = 0x1.0p-60;  // log(0) guard
    const double radius = sqrt(-2.0 * log(u1));
    const double angle = 6.283185307179586476925 * u2;
    spare_ = radius * sin(angle);
    has_spare_ = true;
    return radius * cos(angle);
  }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>(next_u64()) * n) >> 64);
  }
  CHAINSAW_HD bool bernoulli(double p) { return uniform() < p; }

  std::uint64_t state() const { return state_; }
  bool has_spare() const { return has_spare_; }
  double spare() const { return spare_; }
  void set_state(std::uint64_t s) {
    state_ = s;
    has_spare_ = false;
  }
  // The whole generator as saved by a checkpoint, the pending normal value included.
  void restore(std::uint64_t s, bool has_spare, double spare) {
    state_ = s;
    has_spare_ = has_spare;
    spare_ = spare;
  }

 private:
  std::uint64_t state_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace chainsaw
