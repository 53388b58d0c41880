#include "tools/ring_bench/sweep.h"

#include <algorithm>
#include <cstdio>

#include "core/checkpoint/atomic_file.h"
#include "core/common/units.h"

namespace strata {

int iterations_for(uint64_t bytes, double seconds_per_call) {
  const uint64_t by_volume = (uint64_t{128} << 20) / std::max<uint64_t>(bytes, 8192);
  const int volume = static_cast<int>(std::clamp<uint64_t>(by_volume, 3, 5000));
  const int by_time = static_cast<int>(0.2 / std::max(seconds_per_call, 1e-9));
  return std::clamp(by_time, 3, volume);
}

SweepRow::SweepRow(uint64_t bytes_, int iterations_, size_t sides)
    : bytes(bytes_), iterations(iterations_), best(sides, 1e30) {}

void SweepRow::add_round(const std::vector<double>& seconds) {
  for (size_t s = 0; s < best.size(); ++s) best[s] = std::min(best[s], seconds[s]);
  rounds.push_back(seconds);
}

double SweepRow::busbw(size_t side, int world) const {
  const double bus_factor = world > 1 ? 2.0 * (world - 1) / world : 1.0;
  return static_cast<double>(bytes) / best[side] * bus_factor / 1e9;
}

double SweepRow::ratio(size_t side, size_t of) const {
  std::vector<double> each;
  for (const auto& round : rounds) each.push_back(round[of] / round[side]);
  std::sort(each.begin(), each.end());
  return each.empty() ? 0 : each[each.size() / 2];
}

SweepTable::SweepTable(std::string csv_path, int world, std::vector<std::string> sides,
                       std::vector<std::pair<size_t, size_t>> ratios, bool printing)
    : csv_path_(std::move(csv_path)),
      world_(world),
      sides_(std::move(sides)),
      ratios_(std::move(ratios)),
      printing_(printing) {
  csv_ = "bytes,world,iterations";
  for (const auto& side : sides_) csv_ += "," + side + "_us," + side + "_busbw_gbs";
  for (const auto& [a, b] : ratios_) csv_ += "," + sides_[a] + "_over_" + sides_[b];
  csv_ += "\n";
}

void SweepTable::print_header() const {
  if (!printing_) return;
  std::printf("# %d ranks, f32 sum in place; busbw GB/s (best round); ratios: median of rounds\n",
              world_);
  std::printf("%10s %6s", "size", "iters");
  for (const auto& side : sides_) std::printf(" %10s", side.c_str());
  for (const auto& [a, b] : ratios_) {
    std::printf(" %14s", (sides_[a] + "/" + sides_[b]).c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

void SweepTable::add(const SweepRow& row) {
  if (!printing_) return;
  std::printf("%10s %6d", format_size(row.bytes).c_str(), row.iterations);
  char cell[64];
  csv_ += std::to_string(row.bytes) + "," + std::to_string(world_) + "," +
          std::to_string(row.iterations);
  for (size_t s = 0; s < sides_.size(); ++s) {
    std::printf(" %10.3f", row.busbw(s, world_));
    std::snprintf(cell, sizeof cell, ",%.3f,%.4f", row.best[s] * 1e6, row.busbw(s, world_));
    csv_ += cell;
  }
  for (const auto& [a, b] : ratios_) {
    std::printf(" %14.3f", row.ratio(a, b));
    std::snprintf(cell, sizeof cell, ",%.4f", row.ratio(a, b));
    csv_ += cell;
  }
  csv_ += "\n";
  std::printf("\n");
  std::fflush(stdout);
}

Status SweepTable::finish() const {
  if (!printing_ || csv_path_.empty()) return Status::Ok();
  return write_file_atomically(csv_path_, csv_);
}

}  // namespace strata
