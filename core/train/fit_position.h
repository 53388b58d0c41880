// FitPosition: where Model::fit stands in its epochs and its data, saved in
// a checkpoint's metadata so that a fit resumed after a kill continues the
// epoch it was in, as Keras' BackupAndRestore does, instead of running
// every epoch again.
//
// A resumed fit restores the input's iteration state as it was when the
// epoch began (Dataset::iteration_state: which shuffle order comes next),
// makes the epoch's iterator afresh and reads past the batches already
// trained on. The pipeline is deterministic given that state, so the
// resumed run sees the same batches in the same order, and ends with the
// same weights, as a run never interrupted. The batches it reads past hold
// exactly the epoch's steps (plus empty batches), so it refuses a position
// that does not fit the input (Model::fit) instead of reading on, for ever
// on an endless one.
//
// Stored as text under "fit/..." keys, so the file format is unchanged: a
// checkpoint written before these keys existed still restores (the fit then
// starts again at the beginning of the epoch its step fell in, and says so
// in a log line), and an older build reads the new files.
#ifndef STRATA_CORE_TRAIN_FIT_POSITION_H_
#define STRATA_CORE_TRAIN_FIT_POSITION_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata {

struct FitPosition {
  int64_t epoch = 0;             // epochs finished: the 0-based index of the one in progress
  int64_t steps_in_epoch = 0;    // training steps it has run
  int64_t batches_in_epoch = 0;  // batches read from its iterator: its steps plus any empty batch
  // The input's iteration_state() when the epoch began; nullopt for a
  // model that has not begun a fit (the input is then taken as it is).
  std::optional<std::vector<uint64_t>> data_state;

  bool operator==(const FitPosition&) const = default;
};

inline constexpr char kFitEpochKey[] = "fit/epoch";
inline constexpr char kFitStepsInEpochKey[] = "fit/steps_in_epoch";
inline constexpr char kFitBatchesInEpochKey[] = "fit/batches_in_epoch";
inline constexpr char kFitDataStateKey[] = "fit/data_state";

// Writes the four "fit/..." entries (the data state as comma-separated
// decimal counters, "unset" for nullopt).
void store_fit_position(const FitPosition& position, std::map<std::string, std::string>& metadata);

// nullopt when `metadata` holds none of the keys (a checkpoint from before
// they existed). DataLoss naming `where` and the key when only some are
// present, or a value is not a decimal number that fits (no sign, no
// spaces, no overflow), or there are more batches than steps allow.
StatusOr<std::optional<FitPosition>> load_fit_position(
    const std::map<std::string, std::string>& metadata, const std::string& where);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_FIT_POSITION_H_
