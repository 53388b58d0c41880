#include "staging_choice.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <utility>

namespace strata::shm {
namespace {

// How far one sample moves an estimate: the store in use is timed on every
// call and follows a change within a few; a try (the second of two calls
// every kExploreEvery, the only one timed) moves the other store's stale
// estimate half way.
constexpr double kWeight = 0.25;
constexpr double kTrialWeight = 0.5;
// A sample counts for at most this many times the estimate (staging_choice.h).
constexpr double kLargestStep = 2.0;

}  // namespace

StagingChoice::StagingChoice(Staging option, StagingEstimates* own,
                             std::vector<const StagingEstimates*> team)
    : option_(option), own_(own), team_(std::move(team)) {}

int StagingChoice::class_of(uint64_t bytes) {
  const int c = 63 - std::countl_zero(bytes | 1);
  return c >= kStagingFirstClass && c < kStagingFirstClass + kStagingClasses
             ? c - kStagingFirstClass
             : -1;
}

double StagingChoice::read(const StagingEstimates& e, int into, strata_op_t op, int c,
                           int store) {
  // Written by another process while this one reads: 8-byte atomics are
  // address-free, as the segment's flags are.
  return std::atomic_ref<const double>(e.ns_per_byte[into][op][c][store])
      .load(std::memory_order_relaxed);
}

double StagingChoice::team_estimate(strata_op_t op, uint64_t bytes, bool streaming,
                                    StoresInto into) const {
  const int c = class_of(bytes);
  if (c < 0 || op < 0 || op >= STRATA_OP_COUNT) return 0;
  const int i = static_cast<int>(into);
  double sum = 0;
  for (const StagingEstimates* rank : team_) {
    const double cached = read(*rank, i, op, c, 0);
    const double streamed = read(*rank, i, op, c, 1);
    // A rank that has not measured both yet (it is a call behind) is left
    // out of both sums alike.
    if (cached > 0 && streamed > 0) sum += streaming ? streamed : cached;
  }
  return sum;
}

StagingChoice::Pick StagingChoice::pick(strata_op_t op, uint64_t bytes, StoresInto into,
                                        uint64_t output_bytes) {
  if (option_ != Staging::kAuto) return {option_ == Staging::kStreaming, false, false, false};
  const int c = class_of(bytes);
  if (c < 0 || op < 0 || op >= STRATA_OP_COUNT) return {};  // c < 0: under kSmallest
  const int i = static_cast<int>(into);
  if (into == StoresInto::kOutput && (output_bytes > 0 ? output_bytes : bytes) < kSmallestOutput) {
    // An all-gather's class may straddle the cut (3 ranks: 6-12 MiB of
    // output): this call ran cached, as the next one of the class must know.
    last_streamed_[i][op][c] = false;
    return {};
  }
  const uint64_t call = calls_[i][op][c]++;
  bool& last_streamed = last_streamed_[i][op][c];
  Pick p;
  if (call == 0) {
    last_streamed = false;
    return p;  // first touch, cached: not what stores cost
  }
  if (call <= kSeedingCalls) {
    p.streaming = call > 2;
    p.trial = true;
    p.seeding = true;
  } else {
    const double cached = team_estimate(op, bytes, false, into);
    const double streaming = team_estimate(op, bytes, true, into);
    if (cached == 0 || streaming == 0) {
      // The sums count only ranks that measured both stores: this rank has
      // not, as a seeding call failed (never learned from). It measures the
      // store it lacks.
      p.streaming = read(*own_, i, op, c, 1) == 0 && read(*own_, i, op, c, 0) > 0;
      p.trial = true;
    } else {
      const bool faster = streaming < cached;
      p.trial = call % kExploreEvery < 2;
      p.streaming = p.trial ? !faster : faster;
    }
  }
  p.timed = p.streaming == last_streamed;
  last_streamed = p.streaming;
  return p;
}

void StagingChoice::learn(strata_op_t op, uint64_t bytes, const Pick& pick, int64_t ns,
                          StoresInto into) {
  const int c = class_of(bytes);
  if (!pick.timed || c < 0 || op < 0 || op >= STRATA_OP_COUNT || ns <= 0) return;
  double& slot = own_->ns_per_byte[static_cast<int>(into)][op][c][pick.streaming ? 1 : 0];
  std::atomic_ref<double> estimate(slot);
  const double old = estimate.load(std::memory_order_relaxed);
  double sample = static_cast<double>(ns) / static_cast<double>(bytes);
  if (pick.seeding) {
    estimate.store(old == 0 ? sample : std::min(old, sample), std::memory_order_relaxed);
    return;
  }
  if (old > 0) sample = std::min(sample, kLargestStep * old);
  const double weight = pick.trial ? kTrialWeight : kWeight;
  estimate.store(old == 0 ? sample : (1 - weight) * old + weight * sample,
                 std::memory_order_relaxed);
}

}  // namespace strata::shm
