#include "torus_operation.h"

#include <algorithm>
#include <string>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::tpu_sim {

Range slice(Range whole, size_t elem_size, int part, int parts) {
  const uint64_t align = std::max<uint64_t>(1, 64 / elem_size);
  const uint64_t units = (whole.count + align - 1) / align;
  const auto p = static_cast<uint64_t>(part);
  const auto ps = static_cast<uint64_t>(parts);
  const uint64_t begin = std::min(whole.count, (units * p / ps) * align);
  const uint64_t end = std::min(whole.count, (units * (p + 1) / ps) * align);
  return {whole.begin + begin, end - begin};
}

TorusOperation::TorusOperation(TorusTeam& team, const strata_call_t& call)
    : team_(team),
      call_(call),
      elem_(sdk::dtype_size(call.desc->dtype)),
      used_(static_cast<size_t>(team.size()), false) {}

TorusOperation::~TorusOperation() {
  if (!posted_ || done_) return;
  // Cores always make progress (their own waits have deadlines), so this
  // ends; the bound only keeps a wedged simulation from hanging the process.
  try {
    if (!wait(std::chrono::minutes(5))) {
      sdk::Host::log(STRATA_LOG_ERROR,
                     "tpu_sim: an abandoned operation's core work did not drain in 5 minutes");
    }
  } catch (const std::exception& e) {
    sdk::Host::log(STRATA_LOG_ERROR,
                   std::string("tpu_sim: draining an abandoned operation: ") + e.what());
  }
}

void TorusOperation::record_final_events() {
  for (int r = 0; r < n(); ++r) {
    if (used_[static_cast<size_t>(r)]) team_.cores().event_record(team_.event(r));
  }
}

void TorusOperation::post() {
  posted_ = true;
  try {
    schedule();
  } catch (...) {
    record_final_events();  // so the destructor can wait for what was queued
    throw;
  }
  record_final_events();
}

bool TorusOperation::test() {
  for (int r = 0; r < n(); ++r) {
    if (used_[static_cast<size_t>(r)] && !team_.cores().event_query(team_.event(r))) return false;
  }
  done_ = true;
  return true;
}

bool TorusOperation::wait(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int r = 0; r < n(); ++r) {
    if (!used_[static_cast<size_t>(r)]) continue;
    const auto left = std::max<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now(), std::chrono::nanoseconds(0));
    if (!team_.cores().event_wait(team_.event(r), left)) return false;
  }
  done_ = true;
  return true;
}

void TorusOperation::pull(int on, void* dst, const void* src, int from, uint64_t bytes) {
  if (bytes == 0 || dst == src) return;
  used_[static_cast<size_t>(on)] = true;
  team_.cores().copy_async(team_.core(on), dst, team_.core(on), src, team_.core(from), bytes);
}

void TorusOperation::reduce(int on, void* dst, std::span<const void* const> srcs,
                            uint64_t elements, bool final) {
  if (elements == 0) return;
  used_[static_cast<size_t>(on)] = true;
  const strata_redop_t op = (desc().redop == STRATA_MEAN && !final) ? STRATA_SUM : desc().redop;
  void* const dsts[1] = {dst};
  team_.cores().reduce_async(team_.core(on), desc().dtype, op, dsts, srcs, elements,
                             static_cast<uint32_t>(desc().team->replica_count));
}

void TorusOperation::signal(int r) {
  used_[static_cast<size_t>(r)] = true;
  team_.cores().event_record(team_.event(r));
}

void TorusOperation::wait_for(int r, int producer) {
  if (r == producer) return;
  used_[static_cast<size_t>(r)] = true;
  team_.cores().stream_wait_event(team_.core(r), team_.event(producer));
}

}  // namespace strata::tpu_sim
