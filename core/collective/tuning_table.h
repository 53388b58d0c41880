// TuningTable: measured times of each algorithm, per call shape and size,
// that AUTO ranks by before it trusts any cost model. `strata bench --tune
// FILE` writes it on the machine that will train; `collectives.tuning: FILE`
// in the config makes the selector read it. A model is a guess made by the
// plugin author; a measurement on the host is what "fastest" means for CPU
// teams, whose speed depends on caches, cores and whatever else runs there.
//
// The file is YAML, version 1:
//
//   strata_tuning: 1
//   command: strata bench --algorithm all --tune tuning.yaml
//   entries:
//     - op: all_reduce
//       device_type: cpu
//       processes: 1
//       local_devices: 4
//       dtype: f32
//       algorithm: hierarchical_copy/all_reduce/ring
//       times_us: {4096: 12.5, 65536: 80.1, 1048576: 1210}
//
// A lookup only answers inside the measured sizes (interpolated on a log-log
// scale between the two nearest); outside them, or for a shape nobody
// measured, it answers nothing and AUTO falls back to the models, so a stale
// or partial file can make a choice worse only where it was measured.
#ifndef STRATA_CORE_COLLECTIVE_TUNING_TABLE_H_
#define STRATA_CORE_COLLECTIVE_TUNING_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"

namespace strata {

// The shape of team and call a measurement holds for.
struct TuningKey {
  CollectiveKind op = CollectiveKind::kAllReduce;
  std::string device_type;  // by name: ids differ between processes
  int processes = 1;
  int local_devices = 1;
  DType dtype = DType::kF32;

  auto tie() const { return std::tie(op, device_type, processes, local_devices, dtype); }
  bool operator<(const TuningKey& o) const { return tie() < o.tie(); }
  bool operator==(const TuningKey& o) const { return tie() == o.tie(); }
  std::string to_string() const;  // "all_reduce f32 on 1 process x 4 cpu device(s)"
};

class TuningTable {
 public:
  // Parses a tuning file's text; errors name `file`:line:column and the key.
  static StatusOr<TuningTable> parse(std::string_view text, std::string file);
  // Reads and parses `path`.
  static StatusOr<TuningTable> load(const std::string& path);

  // The measured seconds of one call of `bytes` with `algorithm`, or nullopt
  // when the table has no measurement that brackets it. A key with another
  // dtype of the same width stands in when the exact dtype was not measured:
  // the time of a collective follows its bytes far more than its type.
  std::optional<double> lookup(const TuningKey& key, std::string_view algorithm,
                               uint64_t bytes) const;
  // Whether any algorithm was measured for calls like `key` at `bytes`.
  bool covers(const TuningKey& key, uint64_t bytes) const;

  // Replaces what was known of (key, algorithm) with `times_us` by bytes.
  void set(const TuningKey& key, const std::string& algorithm,
           std::map<uint64_t, double> times_us);
  void set_command(std::string command) { command_ = std::move(command); }

  // The file's text, entries sorted so that rewriting it is a stable diff.
  std::string to_yaml() const;

  const std::string& source() const { return source_; }
  size_t shape_count() const { return entries_.size(); }

 private:
  using Times = std::map<uint64_t, double>;  // bytes -> microseconds
  const std::map<std::string, Times>* find_shape(const TuningKey& key) const;

  std::string source_;   // the file it came from, for explain and reasons
  std::string command_;  // what measured it
  std::map<TuningKey, std::map<std::string, Times>> entries_;
};

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_TUNING_TABLE_H_
