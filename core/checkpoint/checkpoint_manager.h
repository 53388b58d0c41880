// CheckpointManager: a directory of numbered checkpoints, like
// tf.train.CheckpointManager.
//
//   <directory>/ckpt-<step>.strata   one checkpoint each (checkpoint_file.h)
//   <directory>/checkpoint           the index: the kept files, oldest first
//
// save() writes the new checkpoint atomically, then atomically rewrites the
// index, then deletes the oldest files beyond max_to_keep. A crash at any
// point leaves the previous checkpoint and an index naming only whole files.
// restore_latest() takes the newest checkpoint that reads back valid: a
// corrupt or truncated newest one is reported in a warning and the one
// before it is used. A missing or damaged index is rebuilt from the files
// present (ckpt-*.strata, ordered by step).
//
// Strategy-agnostic like the files: it stores what it is given.
// One writer per directory (the chief); readers may run alongside it, since
// every file they can see is whole.
#ifndef STRATA_CORE_CHECKPOINT_CHECKPOINT_MANAGER_H_
#define STRATA_CORE_CHECKPOINT_CHECKPOINT_MANAGER_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint_file.h"
#include "core/common/status.h"

namespace strata {

class CheckpointManager {
 public:
  static constexpr const char* kIndexFileName = "checkpoint";

  // Touches nothing on disk: library code cannot fail in a constructor, so
  // save() creates the directory, with an error naming it if it cannot.
  // max_to_keep must be at least 1 (save() says so otherwise).
  explicit CheckpointManager(std::filesystem::path directory, int max_to_keep = 5);

  // Writes ckpt-<step>.strata (replacing one of the same step), updates the
  // index, deletes the oldest files beyond max_to_keep, and returns the new
  // file's path. On failure the previous checkpoints and index are intact.
  StatusOr<std::filesystem::path> save(const Checkpoint& checkpoint);

  // The newest kept checkpoint whose header, length and checksum are
  // valid, or nullopt (with a warning for each damaged one skipped).
  std::optional<std::filesystem::path> latest() const;

  // The newest kept checkpoint that reads back valid, falling back past
  // damaged ones with a warning naming each file and why. NotFound when
  // the directory holds no checkpoint; DataLoss when all are damaged.
  StatusOr<Checkpoint> restore_latest() const;

  // The kept checkpoints, oldest first: the index's list, or the files
  // found in the directory when the index is missing or damaged.
  std::vector<std::filesystem::path> checkpoints() const;

  const std::filesystem::path& directory() const { return directory_; }
  int max_to_keep() const { return max_to_keep_; }

  static std::string file_name(int64_t step);  // "ckpt-12.strata"
  // The step in a name file_name() made, or nullopt for any other name.
  static std::optional<int64_t> step_of(const std::string& file_name);

 private:
  std::vector<std::string> kept_names() const;
  std::vector<std::string> scan_directory() const;

  std::filesystem::path directory_;
  int max_to_keep_;
};

}  // namespace strata

#endif  // STRATA_CORE_CHECKPOINT_CHECKPOINT_MANAGER_H_
