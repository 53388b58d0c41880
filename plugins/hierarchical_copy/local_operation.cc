#include "local_operation.h"

#include <algorithm>

#include "strata/sdk/host.h"
#include "strata/sdk/types.h"

namespace strata::hierarchical_copy {

Range slice(uint64_t count, size_t elem_size, int part, int parts) {
  const uint64_t align = std::max<uint64_t>(1, 64 / elem_size);
  const uint64_t units = (count + align - 1) / align;
  const auto p = static_cast<uint64_t>(part);
  const auto ps = static_cast<uint64_t>(parts);
  const uint64_t begin = std::min(count, (units * p / ps) * align);
  const uint64_t end = std::min(count, (units * (p + 1) / ps) * align);
  return {begin, end - begin};
}

LocalOperation::LocalOperation(LocalTeam& team, const strata_call_t& call)
    : team_(team),
      call_(call),
      elem_(sdk::dtype_size(call.desc->dtype)),
      used_(static_cast<size_t>(team.size()), false) {}

LocalOperation::~LocalOperation() {
  if (!posted_ || done_) return;
  // Device streams always make progress, so this ends; the bound only keeps
  // a wedged device from hanging the process forever.
  try {
    if (!wait(std::chrono::minutes(5))) {
      sdk::Host::log(STRATA_LOG_ERROR,
                     "an abandoned operation's device work did not drain within 5 minutes");
    }
  } catch (const std::exception& e) {
    sdk::Host::log(STRATA_LOG_ERROR, std::string("draining an abandoned operation: ") + e.what());
  }
}

void LocalOperation::record_final_events() {
  for (int r = 0; r < n(); ++r) {
    if (used_[static_cast<size_t>(r)]) team_.event(r).record();
  }
}

void LocalOperation::post() {
  posted_ = true;
  try {
    schedule();
  } catch (...) {
    record_final_events();  // so the destructor can wait for what was queued
    throw;
  }
  record_final_events();
}

bool LocalOperation::test() {
  for (int r = 0; r < n(); ++r) {
    if (used_[static_cast<size_t>(r)] && !team_.event(r).reached()) return false;
  }
  done_ = true;
  return true;
}

bool LocalOperation::wait(std::chrono::nanoseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int r = 0; r < n(); ++r) {
    if (!used_[static_cast<size_t>(r)]) continue;
    const auto left = deadline - std::chrono::steady_clock::now();
    if (!team_.event(r).wait(std::max<std::chrono::nanoseconds>(left, {}))) return false;
  }
  done_ = true;
  return true;
}

void LocalOperation::copy(int on, void* dst, int dst_replica, const void* src, int src_replica,
                          uint64_t bytes) {
  if (bytes == 0 || dst == src) return;
  used_[static_cast<size_t>(on)] = true;
  team_.table().copy_async(team_.device(on), dst, team_.device(dst_replica), src,
                           team_.device(src_replica), bytes);
}

void LocalOperation::reduce(int on, void* dst, std::span<const void* const> srcs,
                            uint64_t elements, bool final) {
  void* const dsts[1] = {dst};
  reduce_to(on, dsts, srcs, elements, final);
}

void LocalOperation::reduce_to(int on, std::span<void* const> dsts,
                               std::span<const void* const> srcs, uint64_t elements,
                               bool final) {
  if (elements == 0) return;
  used_[static_cast<size_t>(on)] = true;
  const strata_redop_t op =
      (desc().redop == STRATA_MEAN && !final) ? STRATA_SUM : desc().redop;
  team_.table().reduce_async(team_.device(on), desc().dtype, op, dsts, srcs, elements,
                             static_cast<uint32_t>(desc().team->replica_count));
}

const void* LocalOperation::readable(int on, const void* src, int src_replica, uint64_t bytes,
                                     int slot) {
  if (team_.peer_access(on, src_replica)) return src;
  void* staged = team_.scratch(on, slot, bytes);
  copy(on, staged, on, src, src_replica, bytes);
  return staged;
}

void LocalOperation::signal(int r) {
  used_[static_cast<size_t>(r)] = true;
  team_.event(r).record();
}

void LocalOperation::wait_for(int r, int producer) {
  if (r == producer) return;
  used_[static_cast<size_t>(r)] = true;
  team_.event(producer).make_stream_wait(team_.device(r));
}

void LocalOperation::join(std::span<const int> replicas) {
  for (int r : replicas) signal(r);
  for (int r : replicas) {
    for (int p : replicas) wait_for(r, p);
  }
}

}  // namespace strata::hierarchical_copy
