#include "ring_operation.h"

#include <algorithm>
#include <thread>

#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::grpc_ring {

uint64_t Blocks::offset(int b) const {
  const uint64_t i = static_cast<uint64_t>(b);
  return i * (count_ / parts_) + std::min(i, count_ % parts_);
}

void for_each_chunk(uint64_t bytes, size_t elem, uint64_t chunk_bytes,
                    const std::function<void(uint32_t, uint64_t, uint64_t)>& fn) {
  const uint64_t step = std::max<uint64_t>(elem, chunk_bytes / elem * elem);
  uint32_t index = 0;
  for (uint64_t at = 0; at < bytes; at += step) fn(index++, at, std::min(step, bytes - at));
}

RingOperation::RingOperation(RingTeam& team, const strata_call_t& call, Plan plan)
    : team_(team), desc_(*call.desc), sequence_(call.sequence), plan_(std::move(plan)) {}

void RingOperation::post() {
  posted_ = true;
  team_.check_usable();
  if (plan_.before) plan_.before();
  completed_base_ = team_.data_plane().completed();
  advance();
}

bool RingOperation::test() {
  if (!posted_) throw sdk::Error(STRATA_FAILED_PRECONDITION, "test() before post()");
  if (failed_code_ != STRATA_OK) throw sdk::Error(failed_code_, failed_);
  if (!done_) advance();
  return done_;
}

bool RingOperation::wait(std::chrono::nanoseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  DataPlane& plane = team_.data_plane();
  for (;;) {
    // The mark is taken before looking, so an event in between is not
    // slept through.
    const uint64_t mark = plane.mark();
    if (test()) return true;
    if (Clock::now() >= deadline) return false;
    plane.wait(mark, deadline, received_ < plan_.recvs.size(),
               plane.completed() - completed_base_ < plan_.sends.size());
  }
}

void RingOperation::abort() {
  if (posted_ && !done_) {
    team_.mark_broken("call " + std::to_string(sequence_) + " was aborted before it finished");
  }
}

void RingOperation::advance() {
  DataPlane& plane = team_.data_plane();
  const uint32_t in_flight = team_.options().chunks_in_flight;
  auto send_ready = [&] {
    const uint64_t completed = plane.completed() - completed_base_;
    while (sent_ < plan_.sends.size() && sent_ - completed < in_flight) {
      const SendAction& s = plan_.sends[sent_];
      if (s.after >= 0 && static_cast<size_t>(s.after) >= received_) break;
      plane.send(expected(s.step, s.chunk, s.bytes, team_.rank()), s.src);
      ++sent_;
    }
  };
  try {
    send_ready();
    while (received_ < plan_.recvs.size()) {
      const RecvAction& r = plan_.recvs[received_];
      Delivery delivery;
      delivery.dst = r.dst;
      delivery.local = r.local;
      delivery.dtype = desc_.dtype;
      delivery.redop = r.redop;
      delivery.divisor = static_cast<uint32_t>(team_.size());
      if (!plane.receive(expected(r.step, r.chunk, r.bytes, team_.left()), delivery)) break;
      ++received_;
      send_ready();
    }
    plane.flush();
    send_ready();
    const uint64_t completed = plane.completed() - completed_base_;
    if (completed < plan_.sends.size()) plane.check_send();
    done_ = received_ == plan_.recvs.size() && completed == plan_.sends.size();
  } catch (const sdk::Error& e) {
    fail(e.code(), e.what());
  }
}

Header RingOperation::expected(uint32_t step, uint32_t chunk, uint64_t bytes, int sender) const {
  Header h;
  h.op = static_cast<uint16_t>(desc_.op);
  h.team_id = team_.id();
  h.sequence = sequence_;
  h.step = step;
  h.chunk = chunk;
  h.dtype = desc_.dtype;
  h.sender = static_cast<uint32_t>(sender);
  h.bytes = bytes;
  return h;
}

void RingOperation::fail(strata_status_t code, const std::string& why) {
  team_.mark_broken(why);
  failed_code_ = code;
  failed_ = "grpc_ring " + std::string(sdk::op_name(desc_.op)) + " (" + team_.where() +
            ", call " + std::to_string(sequence_) + "): " + why;
  throw sdk::Error(failed_code_, failed_);
}

}  // namespace strata::grpc_ring
