#include "staging_choice.h"

#include <bit>

namespace strata::shm {
namespace {

// How much one call moves an estimate: the mode in use is timed on every
// call and follows a change within a few; the other only on its tries.
constexpr double kWeight = 0.25;

}  // namespace

int StagingChoice::class_of(uint64_t bytes) {
  return 63 - std::countl_zero(bytes | 1);
}

StagingChoice::Pick StagingChoice::pick(uint64_t bytes) {
  if (option_ != Staging::kAuto) return {option_ == Staging::kStreaming, false};
  if (bytes < kSmallest) return {false, false};
  SizeClass& c = classes_[static_cast<size_t>(class_of(bytes))];
  const uint64_t call = c.calls++;
  if (call == 0) return {false, true};
  if (call == 1) return {true, true};
  const double cached = c.ns_per_byte[0];
  const double streaming = c.ns_per_byte[1];
  // Unmeasured (a failed call is not learned from): try it.
  if (cached == 0) return {false, true};
  if (streaming == 0) return {true, true};
  const bool faster = streaming < cached;
  return {call % kExploreEvery == 0 ? !faster : faster, true};
}

void StagingChoice::learn(uint64_t bytes, bool streaming, int64_t ns) {
  if (bytes < kSmallest || ns <= 0) return;
  double& estimate = classes_[static_cast<size_t>(class_of(bytes))].ns_per_byte[streaming ? 1 : 0];
  const double sample = static_cast<double>(ns) / static_cast<double>(bytes);
  estimate = estimate == 0 ? sample : (1 - kWeight) * estimate + kWeight * sample;
}

double StagingChoice::estimate(uint64_t bytes, bool streaming) const {
  return classes_[static_cast<size_t>(class_of(bytes))].ns_per_byte[streaming ? 1 : 0];
}

}  // namespace strata::shm
