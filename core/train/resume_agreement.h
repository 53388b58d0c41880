// Agreeing, before a multi-worker fit starts, on the checkpoint every
// worker resumes from.
//
// Each worker reads its own --model-dir. If one finds step 150 and another
// an empty directory, each would start from its own state and the job
// would train on, exit 0, and end with different weights per worker. So
// every worker states what it is about to restore -- nothing, a checkpoint
// (step and CRC-32 of the file), or an error -- and all of them go on only
// if every worker said the same; otherwise every worker fails with the
// same message, naming each worker and what it found.
#ifndef STRATA_CORE_TRAIN_RESUME_AGREEMENT_H_
#define STRATA_CORE_TRAIN_RESUME_AGREEMENT_H_

#include <cstdint>
#include <string>

#include "core/common/status.h"

namespace strata {

class Strategy;

struct ResumeChoice {
  enum class Kind { kNothing, kCheckpoint, kError };
  Kind kind = Kind::kNothing;
  int64_t step = 0;       // kCheckpoint
  uint32_t checksum = 0;  // kCheckpoint: the file's CRC-32

  bool operator==(const ResumeChoice&) const = default;
  std::string describe() const;  // "step 150 (CRC 0x1234abcd)", "no checkpoint", ...
};

// Collective: every worker of `strategy` must call it, once, at the same
// point (from the cross-replica context). A job of one worker returns at
// once. FailedPrecondition naming the workers when they differ; Aborted
// naming the workers that reported an error, on every other worker (each
// of those returns its own error itself). Errors of the exchange itself
// are returned as they are.
Status agree_on_resume(Strategy& strategy, const ResumeChoice& mine);

}  // namespace strata

#endif  // STRATA_CORE_TRAIN_RESUME_AGREEMENT_H_
