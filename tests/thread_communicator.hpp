// A Communicator for tests: P ranks as P threads of one process, meeting at a shared
// rendezvous (a mutex, a condition variable, a generation-counting barrier and mailboxes), so
// that sharded runs are tested without MPI. Collectives post a pointer, meet at a barrier, read
// the others' data and meet again before anyone may reuse its buffer; send is buffered.
// run_ranks() runs one function per rank; when one rank throws, the others are released from
// whatever they wait on (they throw RankFailed) and the first real exception is rethrown.
#pragma once

#include <omp.h>

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "core/distributed/communicator.hpp"

namespace chainsaw::test {

// Thrown in a rank that waited for a rank that had failed.
struct RankFailed : std::runtime_error {
  RankFailed() : std::runtime_error("another rank failed") {}
};

class Rendezvous {
 public:
  explicit Rendezvous(int size) : size_(size), posted_(static_cast<std::size_t>(size)) {}
  int size() const { return size_; }

  // Every rank's pointer, once all have posted; `read` runs between the two barriers.
  void exchange(int rank, const void* mine,
                const std::function<void(const std::vector<const void*>&)>& read) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      posted_[static_cast<std::size_t>(rank)] = mine;
    }
    barrier();
    read(posted_);
    barrier();
  }

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex_);
    throw_if_failed();
    const std::uint64_t generation = generation_;
    if (++arrived_ == size_) {
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return generation_ != generation || failed_; });
    if (generation_ == generation) throw RankFailed();  // released by a failure, not by all
  }

  void send(const void* data, std::size_t bytes, int from, int to, int tag) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto* p = static_cast<const std::uint8_t*>(data);
    mail_[{from, to, tag}].emplace_back(p, p + bytes);
    changed_.notify_all();
  }

  void receive(void* data, std::size_t bytes, int from, int to, int tag) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto& box = mail_[{from, to, tag}];
    changed_.wait(lock, [&] { return !box.empty() || failed_; });
    if (box.empty()) throw RankFailed();
    if (box.front().size() != bytes) throw std::logic_error("receive: message of another size");
    if (bytes > 0) std::memcpy(data, box.front().data(), bytes);
    box.pop_front();
  }

  void fail() {
    std::lock_guard<std::mutex> lock(mutex_);
    failed_ = true;
    changed_.notify_all();
  }

 private:
  void throw_if_failed() const {
    if (failed_) throw RankFailed();
  }

  const int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  std::uint64_t generation_ = 0;
  bool failed_ = false;
  std::vector<const void*> posted_;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<std::uint8_t>>> mail_;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(Rendezvous& rendezvous, int rank) : rv_(rendezvous), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return rv_.size(); }

  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) override {
    rv_.exchange(rank_, in, [&](const std::vector<const void*>& all) {
      auto* o = static_cast<std::uint8_t*>(out);
      for (std::size_t r = 0; r < counts.size(); ++r) {
        if (counts[r] > 0) std::memcpy(o, all[r], counts[r]);
        o += counts[r];
      }
    });
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    rv_.exchange(rank_, data, [&](const std::vector<const void*>& all) {
      if (rank_ != root && bytes > 0) std::memcpy(data, all[static_cast<std::size_t>(root)], bytes);
    });
  }
  void send(const void* data, std::size_t bytes, int to, int tag) override {
    rv_.send(data, bytes, rank_, to, tag);
  }
  void receive(void* data, std::size_t bytes, int from, int tag) override {
    rv_.receive(data, bytes, from, rank_, tag);
  }
  void barrier() override { rv_.barrier(); }
  void allreduce_min(double* values, int count) override {
    reduce(values, count, [](double a, double b) { return b < a ? b : a; });
  }
  void allreduce_sum(double* values, int count) override {
    reduce(values, count, [](double a, double b) { return a + b; });
  }
  bool any(bool failed) override {
    double v = failed ? 1.0 : 0.0;
    allreduce_sum(&v, 1);
    return v > 0.0;
  }

 private:
  // In rank order on every rank, so that every rank gets the same bits.
  template <class Op>
  void reduce(double* values, int count, Op op) {
    std::vector<double> result(static_cast<std::size_t>(count));
    rv_.exchange(rank_, values, [&](const std::vector<const void*>& all) {
      for (int i = 0; i < count; ++i) {
        double v = static_cast<const double*>(all[0])[i];
        for (std::size_t r = 1; r < all.size(); ++r)
          v = op(v, static_cast<const double*>(all[r])[i]);
        result[static_cast<std::size_t>(i)] = v;
      }
    });
    std::copy(result.begin(), result.end(), values);
  }

  Rendezvous& rv_;
  int rank_;
};

// Runs body(comm) on `ranks` threads, one OpenMP thread each; rethrows the first exception a
// rank raised of its own (not RankFailed).
inline void run_ranks(int ranks, const std::function<void(Communicator&)>& body) {
  Rendezvous rendezvous(ranks);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      omp_set_num_threads(1);
      ThreadCommunicator comm(rendezvous, r);
      try {
        body(comm);
      } catch (const RankFailed&) {
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
        rendezvous.fail();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace chainsaw::test
