#include "tools/strata/bench_tuning.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/checkpoint/atomic_file.h"

namespace strata::cli {

StatusOr<BenchTuning> BenchTuning::open(const std::string& path, TuningKey key) {
  // Fail before a long sweep, not after it: the file is renamed into place.
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string dir_name = dir.empty() ? "." : dir.string();
  if (::access(dir_name.c_str(), W_OK) != 0) {
    return UnavailableError("--tune " + path + ": cannot write into '" + dir_name +
                            "': " + std::strerror(errno));
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (ec) return UnavailableError("cannot check '" + path + "': " + ec.message());
    return BenchTuning(path, std::move(key), TuningTable());
  }
  auto existing = TuningTable::load(path);
  if (!existing.ok()) {
    return InvalidArgumentError("--tune " + path + " exists but cannot be merged into: " +
                                existing.status().message() +
                                "; move it away or name another file");
  }
  return BenchTuning(path, std::move(key), std::move(*existing));
}

void BenchTuning::add(const BenchRow& row, uint64_t call_bytes) {
  if (row.outcome != BenchRow::Outcome::kOk || row.algorithm == "auto" || call_bytes == 0 ||
      row.timing.median_us <= 0 || (row.wrong && *row.wrong > 0)) {
    return;
  }
  measured_[row.algorithm][call_bytes] = row.timing.median_us;
}

Status BenchTuning::commit(const std::string& command_line) {
  for (const auto& [algorithm, times] : measured_) table_.set(key_, algorithm, times);
  table_.set_command(command_line);
  STRATA_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::create(path_));
  STRATA_RETURN_IF_ERROR(file.write(table_.to_yaml()));
  return file.commit();
}

}  // namespace strata::cli
