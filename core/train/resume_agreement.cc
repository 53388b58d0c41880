#include "core/train/resume_agreement.h"

#include <vector>

#include "core/checkpoint/checkpoint_format.h"
#include "core/strategy/strategy.h"

namespace strata {
namespace {

// The choice travels through Strategy::gather, which moves f32: every word
// is cut into 16-bit pieces, which a float holds exactly.
constexpr int kFields = 7;  // kind, step as 4 x 16 bits, checksum as 2 x 16 bits

std::vector<float> encode(const ResumeChoice& choice) {
  std::vector<float> row;
  row.push_back(static_cast<float>(static_cast<int>(choice.kind)));
  const auto step = static_cast<uint64_t>(choice.step);
  for (int i = 0; i < 4; ++i) row.push_back(static_cast<float>((step >> (16 * i)) & 0xffff));
  for (int i = 0; i < 2; ++i) {
    row.push_back(static_cast<float>((choice.checksum >> (16 * i)) & 0xffff));
  }
  return row;
}

ResumeChoice decode(const float* row) {
  ResumeChoice choice;
  choice.kind = static_cast<ResumeChoice::Kind>(static_cast<int>(row[0]));
  uint64_t step = 0;
  for (int i = 0; i < 4; ++i) step |= static_cast<uint64_t>(row[1 + i]) << (16 * i);
  choice.step = static_cast<int64_t>(step);
  for (int i = 0; i < 2; ++i) {
    choice.checksum |= static_cast<uint32_t>(row[5 + i]) << (16 * i);
  }
  return choice;
}

}  // namespace

std::string ResumeChoice::describe() const {
  switch (kind) {
    case Kind::kNothing: return "no checkpoint (a fresh start)";
    case Kind::kCheckpoint:
      return "the checkpoint of step " + std::to_string(step) + " (CRC " + crc_text(checksum) + ")";
    case Kind::kError: return "an error (its log says which)";
  }
  return "an unknown answer";
}

Status agree_on_resume(Strategy& strategy, const ResumeChoice& mine) {
  const int workers = strategy.worker_count();
  if (workers <= 1) return Status();
  const int local = strategy.num_local_replicas();
  const std::vector<float> row = encode(mine);
  std::vector<Tensor> copies(static_cast<size_t>(local), Tensor(Shape{1, kFields}, row));
  STRATA_ASSIGN_OR_RETURN(Tensor all, strategy.gather(PerReplica<Tensor>(std::move(copies)), 0));
  if (all.rank() != 2 || all.dim(0) != static_cast<int64_t>(workers) * local) {
    return InternalError("agreeing on the checkpoint to resume: gathered " + all.describe() +
                         " for " + std::to_string(workers) + " workers");
  }
  std::vector<ResumeChoice> choices;
  for (int w = 0; w < workers; ++w) {
    choices.push_back(decode(all.values().data() + static_cast<size_t>(w * local) * kFields));
  }
  std::string failed;
  for (int w = 0; w < workers; ++w) {
    if (choices[static_cast<size_t>(w)].kind == ResumeChoice::Kind::kError) {
      failed += (failed.empty() ? "" : ", ") + std::to_string(w);
    }
  }
  if (!failed.empty()) {
    return AbortedError("not resuming: worker(s) " + failed +
                        " could not read the checkpoint to resume from (their logs say why)");
  }
  bool same = true;
  for (const ResumeChoice& c : choices) same = same && c == choices.front();
  if (same) return Status();
  std::string listing;
  for (int w = 0; w < workers; ++w) {
    const ResumeChoice& c = choices[static_cast<size_t>(w)];
    listing += "\n  worker " + std::to_string(w) + (w == 0 ? " (chief)" : "") + ": " +
               c.describe() + (c == choices.front() || w == 0 ? "" : "  <- differs from the chief");
  }
  return FailedPreconditionError(
      "the workers would resume from different checkpoints, and so train different models:" +
      listing +
      "\nGive every worker the same checkpoint directory (a --model-dir they all see), or "
      "remove the stale ones so that all start afresh");
}

}  // namespace strata
