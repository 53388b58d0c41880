#include "tools/mpi_bench/bench_loop.h"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace strata {
namespace {

double micros(const timeval& t) {
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec);
}

// A template, not std::function: at 8 B a call takes ~0.15 us, and both
// sides' loops should cost no more than the calls they time.
template <class Body>
LoopCost time_loop(int iterations, Body&& body) {
  // Warm caches, page in buffers and settle both sides before timing.
  for (int i = 0; i < std::min(iterations, 50); ++i) body();
  MPI_Barrier(MPI_COMM_WORLD);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) body();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  getrusage(RUSAGE_SELF, &after);
  const double n = iterations;
  double mine[2] = {(micros(after.ru_utime) - micros(before.ru_utime)) / n,
                    (micros(after.ru_stime) - micros(before.ru_stime)) / n};
  double total[2] = {0, 0};
  LoopCost cost;
  const double seconds = took.count() / n;
  MPI_Allreduce(&seconds, &cost.seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, total, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  cost.user_us = total[0] / world;
  cost.system_us = total[1] / world;
  return cost;
}

}  // namespace

int iterations_for(uint64_t bytes) {
  // ~256 MiB moved per round and side (~50 ms from 1 MiB up on the
  // reference VM): shorter rounds let one scheduler hiccup decide a row.
  const uint64_t n = (uint64_t{256} << 20) / std::max<uint64_t>(bytes, 16384);
  return static_cast<int>(std::clamp<uint64_t>(n, 4, 20000));
}

StatusOr<SizeTiming> time_both_sides(BenchCollective& collective, CollectiveOps& ops,
                                     const CallOptions& call, int rounds, int iterations,
                                     bool null_comparison, bool with_null) {
  SizeTiming t;
  t.iterations = std::max(iterations, 1);
  Status failure;
  auto reference = [&] { collective.call_reference(); };
  auto side = [&] {
    if (null_comparison) {
      collective.call_reference();
      return;
    }
    Status s = collective.call_strata(ops, call);
    if (!s.ok() && failure.ok()) failure = s;
  };
  // The loops of a round in an order that changes each round, so that no
  // loop always goes first or always follows the same loop (inheriting its
  // cache state, or a drifting clock speed): two loops alternate; three
  // take the six orders in turn, which over six rounds puts each loop first
  // twice and right after each other loop twice (any three rounds: each
  // loop first once).
  enum Loop { kReference, kSide, kAgain };
  static constexpr Loop kPairs[2][2] = {{kReference, kSide}, {kSide, kReference}};
  static constexpr Loop kTriples[6][3] = {
      {kReference, kSide, kAgain}, {kAgain, kSide, kReference}, {kSide, kAgain, kReference},
      {kReference, kAgain, kSide}, {kAgain, kReference, kSide}, {kSide, kReference, kAgain}};
  LoopCost* costs[3] = {&t.reference, &t.side, &t.again};
  for (LoopCost* c : costs) c->seconds = 1e30;
  std::vector<double> side_ratios, null_ratios;
  for (int round = 0; round < rounds; ++round) {
    const Loop* order = with_null ? kTriples[round % 6] : kPairs[round % 2];
    double seconds[3] = {0, 0, 0};
    for (int i = 0; i < (with_null ? 3 : 2); ++i) {
      const Loop loop = order[i];
      const LoopCost c = loop == kSide ? time_loop(t.iterations, side)
                                       : time_loop(t.iterations, reference);
      LoopCost& kept = *costs[loop];
      kept.seconds = std::min(kept.seconds, c.seconds);
      kept.user_us += c.user_us / rounds;
      kept.system_us += c.system_us / rounds;
      seconds[loop] = c.seconds;
    }
    side_ratios.push_back(seconds[kSide] / seconds[kReference]);
    if (with_null) null_ratios.push_back(seconds[kAgain] / seconds[kReference]);
    // Every rank stops if any failed: one that went on alone would wait
    // in the next round's barrier forever.
    int failed = failure.ok() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    STRATA_RETURN_IF_ERROR(failure);
    if (failed != 0) return UnavailableError("strata-mpi-bench: another rank's call failed");
    collective.refill();  // keep values finite
  }
  auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  t.median_ratio = median(side_ratios);
  if (with_null) {
    t.null_median_ratio = median(null_ratios);
  } else {
    t.again = LoopCost{};
  }
  return t;
}

}  // namespace strata
