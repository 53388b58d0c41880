#include "core/checkpoint/checkpoint_manager.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/checkpoint/atomic_file.h"
#include "core/checkpoint/regular_file.h"
#include "core/common/logging.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "ckpt-";
constexpr std::string_view kSuffix = ".strata";
// The index lists at most a few names; anything bigger is not ours.
constexpr uintmax_t kMaxIndexBytes = 1 << 20;

// A line of an untrusted file, fit for a log message: short and printable.
std::string printable(const std::string& line) {
  std::string out = line.substr(0, 80);
  for (char& c : out) {
    if (c < ' ' || c > '~') c = '?';
  }
  return out;
}

std::string format_index(const std::vector<std::string>& kept) {
  std::string text = "# Strata checkpoint index, written by CheckpointManager; oldest first\n";
  text += "latest " + kept.back() + "\n";
  for (const std::string& name : kept) text += "kept " + name + "\n";
  return text;
}

// The kept names, oldest first, or why the index cannot be trusted. Only
// names of the form ckpt-<step>.strata are accepted, so a damaged index can
// never point outside the directory or at a file that is not a checkpoint.
StatusOr<std::vector<std::string>> parse_index(const std::string& text, const std::string& where) {
  std::vector<std::string> kept;
  std::string latest;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string name = space == std::string::npos ? "" : line.substr(space + 1);
    const std::string at = where + " line " + std::to_string(number);
    if (!CheckpointManager::step_of(name)) {
      return DataLossError(at + ": '" + printable(line) + "' does not name a checkpoint file");
    }
    if (key == "latest" && latest.empty()) {
      latest = name;
    } else if (key == "kept") {
      if (std::find(kept.begin(), kept.end(), name) != kept.end()) {
        return DataLossError(at + ": '" + name + "' is listed twice");
      }
      kept.push_back(name);
    } else {
      return DataLossError(at + ": unexpected '" + printable(line) + "'");
    }
  }
  if (kept.empty()) return DataLossError(where + ": lists no checkpoints");
  // The writer always puts the latest last; anything else is damage.
  if (latest != kept.back()) {
    return DataLossError(where + ": 'latest " + latest + "' is not the last kept checkpoint");
  }
  return kept;
}

StatusOr<std::string> read_small_file(const fs::path& path) {
  const std::string what = "checkpoint index '" + path.string() + "'";
  STRATA_ASSIGN_OR_RETURN(RegularFile file, RegularFile::open(path, what));
  if (file.size() > kMaxIndexBytes) {
    return DataLossError(what + " is " + std::to_string(file.size()) +
                         " bytes, too big for a checkpoint index");
  }
  std::string text(static_cast<size_t>(file.size()), '\0');
  STRATA_RETURN_IF_ERROR(
      file.read_exact(reinterpret_cast<unsigned char*>(text.data()), text.size()));
  return text;
}

}  // namespace

CheckpointManager::CheckpointManager(fs::path directory, int max_to_keep)
    : directory_(std::move(directory)), max_to_keep_(max_to_keep) {}

std::string CheckpointManager::file_name(int64_t step) {
  return std::string(kPrefix) + std::to_string(step) + std::string(kSuffix);
}

std::optional<int64_t> CheckpointManager::step_of(const std::string& name) {
  const std::string_view s = name;
  if (s.size() <= kPrefix.size() + kSuffix.size() || !s.starts_with(kPrefix) ||
      !s.ends_with(kSuffix)) {
    return std::nullopt;
  }
  const std::string_view digits =
      s.substr(kPrefix.size(), s.size() - kPrefix.size() - kSuffix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int64_t step = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (file_name(step) != name) return std::nullopt;  // "ckpt-007.strata" is not ours
  return step;
}

std::vector<std::string> CheckpointManager::scan_directory() const {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    // Whatever its type: a FIFO or directory named like a checkpoint is
    // listed, so that restoring reports it instead of passing it over.
    const std::string name = it->path().filename().string();
    if (const auto step = step_of(name)) found.emplace_back(*step, name);
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    STRATA_LOG_WARN("cannot list checkpoint directory '{}': {}", directory_.string(), ec.message());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& [step, name] : found) names.push_back(std::move(name));
  return names;
}

std::vector<std::string> CheckpointManager::kept_names() const {
  const fs::path index = directory_ / kIndexFileName;
  std::error_code ec;
  if (!fs::exists(index, ec)) return scan_directory();  // first save, or index lost
  const std::string where = "checkpoint index '" + index.string() + "'";
  StatusOr<std::string> text = read_small_file(index);
  StatusOr<std::vector<std::string>> kept =
      text.ok() ? parse_index(*text, where) : StatusOr<std::vector<std::string>>(text.status());
  if (kept.ok()) return *std::move(kept);
  STRATA_LOG_WARN("{}; using the ckpt-*.strata files in '{}' instead", kept.status().message(),
                  directory_.string());
  return scan_directory();
}

std::vector<fs::path> CheckpointManager::checkpoints() const {
  std::vector<fs::path> paths;
  for (const std::string& name : kept_names()) paths.push_back(directory_ / name);
  return paths;
}

StatusOr<fs::path> CheckpointManager::save(const Checkpoint& checkpoint) {
  if (max_to_keep_ < 1) {
    return InvalidArgumentError("checkpoint directory '" + directory_.string() +
                                "': max_to_keep is " + std::to_string(max_to_keep_) +
                                ", must be at least 1");
  }
  if (checkpoint.step < 0) {
    return InvalidArgumentError("checkpoint directory '" + directory_.string() +
                                "': cannot save negative step " + std::to_string(checkpoint.step));
  }
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec || !fs::is_directory(directory_, ec)) {
    return file_error(ec ? ec.value() : ENOTDIR,
                      "cannot create checkpoint directory '" + directory_.string() + "'");
  }
  const std::string name = file_name(checkpoint.step);
  const fs::path path = directory_ / name;
  // Keep only names still on disk; a re-saved step moves to the newest end.
  std::vector<std::string> kept;
  for (std::string& old : kept_names()) {
    if (old != name && fs::exists(directory_ / old, ec)) kept.push_back(std::move(old));
  }
  STRATA_RETURN_IF_ERROR(write_checkpoint(path, checkpoint));
  kept.push_back(name);
  const size_t drop = kept.size() > static_cast<size_t>(max_to_keep_)
                          ? kept.size() - static_cast<size_t>(max_to_keep_)
                          : 0;
  const std::vector<std::string> dropped(kept.begin(), kept.begin() + static_cast<ptrdiff_t>(drop));
  kept.erase(kept.begin(), kept.begin() + static_cast<ptrdiff_t>(drop));
  // The index changes before any file is deleted, so it never names a
  // file that is gone.
  if (Status s = write_file_atomically(directory_ / kIndexFileName, format_index(kept)); !s.ok()) {
    return s.prefixed("'" + path.string() + "' was written but the index was not updated");
  }
  for (const std::string& old : dropped) {
    if (!fs::remove(directory_ / old, ec) && ec) {
      STRATA_LOG_WARN("cannot delete old checkpoint '{}': {}", (directory_ / old).string(),
                      ec.message());
    }
  }
  return path;
}

std::optional<fs::path> CheckpointManager::latest() const {
  const std::vector<std::string> kept = kept_names();
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    const fs::path path = directory_ / *it;
    const Status s = verify_checkpoint(path);
    if (s.ok()) return path;
    STRATA_LOG_WARN("skipping damaged checkpoint: {}", s.message());
  }
  return std::nullopt;
}

StatusOr<Checkpoint> CheckpointManager::restore_latest() const {
  const std::vector<std::string> kept = kept_names();
  std::string reasons;
  bool any_exists = false;  // only missing files is "no checkpoint", not damage
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    StatusOr<Checkpoint> ckpt = read_checkpoint(directory_ / *it);
    if (ckpt.ok()) return ckpt;
    any_exists |= ckpt.status().code() != Code::kNotFound;
    const std::string next = std::next(it) == kept.rend()
                                 ? "nothing older"
                                 : "'" + (directory_ / *std::next(it)).string() + "'";
    STRATA_LOG_WARN("cannot restore {}; falling back to {}", ckpt.status().message(), next);
    reasons += "\n  " + ckpt.status().message();
  }
  if (!any_exists) {
    return NotFoundError("no checkpoint (ckpt-*.strata) in directory '" + directory_.string() +
                         "'");
  }
  return DataLossError("every checkpoint in '" + directory_.string() + "' is damaged:" + reasons);
}

}  // namespace strata
