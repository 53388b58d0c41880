#include "tools/mpi_bench/bench_targets.h"

#include <algorithm>
#include <cstdio>

#include "core/common/units.h"

namespace strata {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

std::string decimals(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string shortest(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

const MeasuredRow* row_at(const std::vector<MeasuredRow>& rows, uint64_t bytes) {
  for (const auto& r : rows) {
    if (r.requested_bytes == bytes) return &r;
  }
  return nullptr;
}

// busbw >= 2x the reference's at every size in [low, high]: the speedup
// is the inverse of the median ratio of times (busbw is bytes / time).
TargetVerdict speedup_over_range(const std::vector<MeasuredRow>& rows, const std::string& side,
                                 const std::string& reference, uint64_t low, uint64_t high,
                                 double wanted) {
  TargetVerdict v;
  v.text = side + " busbw >= " + shortest(wanted) + "x " + reference + "'s from " +
           format_size(low) + " to " + format_size(high);
  const MeasuredRow* worst = nullptr;
  uint64_t first = 0, last = 0;
  for (const auto& r : rows) {
    if (r.requested_bytes < low || r.requested_bytes > high || r.median_ratio <= 0) continue;
    if (first == 0) first = r.requested_bytes;
    last = r.requested_bytes;
    if (worst == nullptr || r.median_ratio > worst->median_ratio) worst = &r;
  }
  if (worst == nullptr) {
    v.detail = "no size in range measured";
    return v;
  }
  const double speedup = 1 / worst->median_ratio;
  v.holds = speedup >= wanted;
  v.detail = "worst " + decimals(speedup, 2) + "x at " + format_size(worst->requested_bytes) +
             ", median of rounds";
  if (first != low || last != high) {
    v.detail += "; only " + format_size(first) + " to " + format_size(last) + " measured";
  }
  return v;
}

TargetVerdict share_of_bound(const std::vector<MeasuredRow>& rows, const std::string& side,
                             uint64_t bytes, double wanted_percent) {
  TargetVerdict v;
  v.text = side + " >= " + shortest(wanted_percent) + "% of the memory bound at " +
           format_size(bytes);
  const MeasuredRow* r = row_at(rows, bytes);
  if (r == nullptr || r->side_seconds <= 0) {
    v.detail = "size not measured";
    return v;
  }
  if (r->bound_seconds <= 0) {
    v.detail = "no bound for one rank";
    return v;
  }
  const double percent = 100 * r->bound_seconds / r->side_seconds;
  v.holds = percent >= wanted_percent;
  v.detail = decimals(percent, 1) + "% of the bound, best round, higher copy bandwidth";
  return v;
}

TargetVerdict time_within(const std::vector<MeasuredRow>& rows, const std::string& side,
                          const std::string& reference, uint64_t bytes, double factor) {
  TargetVerdict v;
  v.text = side + " time <= " + shortest(factor) + "x " + reference + "'s at " +
           format_size(bytes);
  const MeasuredRow* r = row_at(rows, bytes);
  if (r == nullptr || r->median_ratio <= 0) {
    v.detail = "size not measured";
    return v;
  }
  v.holds = r->median_ratio <= factor;
  v.detail = decimals(r->median_ratio, 2) + "x, median of rounds";
  return v;
}

}  // namespace

// The speedup target's range and factor, shared by the verdict and the
// ceiling line.
constexpr uint64_t kSpeedupLow = 256 * kKiB;
constexpr uint64_t kSpeedupHigh = 64 * kMiB;
constexpr double kSpeedup = 2.0;

std::vector<TargetVerdict> judge_targets(const std::vector<MeasuredRow>& rows,
                                         const std::string& side, const std::string& reference) {
  return {speedup_over_range(rows, side, reference, kSpeedupLow, kSpeedupHigh, kSpeedup),
          share_of_bound(rows, side, 64 * kMiB, 40.0),
          time_within(rows, side, reference, 8, 2.0)};
}

std::string verdict_line(const TargetVerdict& v) {
  const char* verdict = !v.holds ? "n/a" : (*v.holds ? "holds" : "FAILS");
  return "# target " + v.text + ": " + verdict + " (" + v.detail + ")";
}

}  // namespace strata

namespace strata {

std::string ceiling_line(const std::vector<MeasuredRow>& rows, const std::string& reference) {
  std::string above;
  int count = 0;
  for (const auto& r : rows) {
    if (r.requested_bytes < kSpeedupLow || r.requested_bytes > kSpeedupHigh) continue;
    if (r.ceiling <= 0 || r.reference_seconds <= 0) continue;
    const double wanted = kSpeedup * r.bus_bytes / r.reference_seconds;
    if (wanted <= r.ceiling) continue;
    above += (count++ == 0 ? "" : ", ") + format_size(r.requested_bytes) + " (" +
             decimals(wanted / 1e9, 2) + " > " + decimals(r.ceiling / 1e9, 2) + " GB/s)";
  }
  if (count == 0) return "";
  return "# ceiling: " + shortest(kSpeedup) + "x " + reference +
         "'s busbw is above the copy ceiling at " + above +
         ": above what every rank copying its neighbour's fresh data at once moves (a "
         "yardstick, not a bound: docs/performance/shm.md, \"The copy ceiling\")";
}

std::string bound_line(const std::vector<MeasuredRow>& rows, const std::string& reference) {
  // The copy bandwidth behind the bound is measured on buffers far larger
  // than a cache: below this size a call's buffers may stay in one, and
  // go faster than the bound says.
  constexpr uint64_t kFromMemory = uint64_t{32} << 20;
  std::string below;
  int count = 0;
  for (const auto& r : rows) {
    if (r.requested_bytes < std::max(kSpeedupLow, kFromMemory) ||
        r.requested_bytes > kSpeedupHigh) {
      continue;
    }
    if (r.single_copy_seconds <= 0 || r.reference_seconds <= 0) continue;
    const double wanted = r.reference_seconds / kSpeedup;
    if (wanted >= r.single_copy_seconds) continue;
    below += (count++ == 0 ? "" : ", ") + format_size(r.requested_bytes) + " (" +
             decimals(wanted * 1e6, 0) + " < " + decimals(r.single_copy_seconds * 1e6, 0) +
             " us: " + reference + " at " +
             decimals(100 * r.single_copy_seconds / r.reference_seconds, 0) + "% of it)";
  }
  if (count == 0) return "";
  return "# bound: " + shortest(kSpeedup) + "x " + reference +
         "'s busbw needs less time than the single-copy memory bound at " + below +
         ": faster than moving the least traffic at the run's copy bandwidth (a yardstick: "
         "what the caches keep beats it; docs/performance/shm.md, \"The memory bound\")";
}

}  // namespace strata
