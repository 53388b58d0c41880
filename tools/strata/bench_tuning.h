// `strata bench --tune FILE`: the medians bench measured, per algorithm and
// size, merged into a tuning file that `collectives.tuning` hands to AUTO
// (core/collective/tuning_table.h). Merging, not overwriting: one file can
// hold all_reduce on 4 devices and broadcast on 8, measured by separate runs;
// what this run measured replaces only its own shape and algorithms.
#ifndef STRATA_TOOLS_STRATA_BENCH_TUNING_H_
#define STRATA_TOOLS_STRATA_BENCH_TUNING_H_

#include <cstdint>
#include <map>
#include <string>

#include "core/collective/tuning_table.h"
#include "tools/strata/bench_report.h"

namespace strata::cli {

class BenchTuning {
 public:
  // Reads `path` when it exists: a file that is there but is not a tuning
  // file is an error, before the sweep, rather than silently replaced.
  static StatusOr<BenchTuning> open(const std::string& path, TuningKey key);

  // Records one finished row; rows that declined or failed, and AUTO's, are
  // not measurements of an algorithm and are skipped.
  void add(const BenchRow& row, uint64_t call_bytes);

  // Number of algorithms with at least one measurement from this run.
  size_t algorithms() const { return measured_.size(); }

  // Writes the merged table atomically (a crash leaves the old file whole).
  Status commit(const std::string& command_line);

 private:
  BenchTuning(std::string path, TuningKey key, TuningTable table)
      : path_(std::move(path)), key_(std::move(key)), table_(std::move(table)) {}

  std::string path_;
  TuningKey key_;
  TuningTable table_;
  std::map<std::string, std::map<uint64_t, double>> measured_;  // id -> bytes -> us
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_TUNING_H_
