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
  completed_base_ = team_.link().completed();
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
  for (;;) {
    // The mark is taken before looking, so an event in between is not
    // slept through.
    const uint64_t mark = team_.signal().mark();
    if (test()) return true;
    if (Clock::now() >= deadline) return false;
    team_.signal().wait(mark, deadline);
  }
}

void RingOperation::abort() {
  if (posted_ && !done_) {
    team_.mark_broken("call " + std::to_string(sequence_) + " was aborted before it finished");
  }
}

void RingOperation::advance() {
  RingLink& link = team_.link();
  const uint32_t in_flight = team_.options().chunks_in_flight;
  auto send_ready = [&] {
    const uint64_t completed = link.completed() - completed_base_;
    while (sent_ < plan_.sends.size() && sent_ - completed < in_flight) {
      const SendAction& s = plan_.sends[sent_];
      if (s.after >= 0 && static_cast<size_t>(s.after) >= received_) break;
      link.send(encode(expected(s.step, s.chunk, s.bytes, team_.rank()), s.src));
      ++sent_;
    }
  };
  try {
    send_ready();
    grpc::ByteBuffer buffer;
    while (received_ < plan_.recvs.size() && team_.inbox().pop(&buffer)) {
      receive(plan_.recvs[received_], buffer);
      ++received_;
      send_ready();
    }
    send_ready();
    const uint64_t completed = link.completed() - completed_base_;
    if (completed < plan_.sends.size()) link.check();
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

void RingOperation::receive(const RecvAction& action, grpc::ByteBuffer& buffer) {
  const Message message(buffer);
  const std::string from = "a message from rank " + std::to_string(team_.left());
  const std::optional<Header> got = message.header();
  if (!got) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is " + std::to_string(message.size()) +
                                           " bytes, shorter than a header");
  }
  if (got->magic != kMagic || got->version != kWireVersion) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is not a grpc_ring v1 message (magic " +
                                           std::to_string(got->magic) + ", version " +
                                           std::to_string(got->version) + ")");
  }
  const Header want = expected(action.step, action.chunk, action.bytes, team_.left());
  if (*got != want) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " is not the one due (malformed, replayed, or "
                                           "of another call): got " + got->describe() +
                                           "; expected " + want.describe());
  }
  if (message.size() != kHeaderBytes + got->bytes) {
    throw sdk::Error(STRATA_DATA_LOSS, from + " carries " +
                                           std::to_string(message.size() - kHeaderBytes) +
                                           " payload bytes, its header says " +
                                           std::to_string(got->bytes));
  }
  if (action.local == nullptr) {
    message.copy_payload(action.dst);
    return;
  }
  const size_t elem = sdk::dtype_size(desc_.dtype);
  message.reduce_payload(desc_.dtype, action.redop, action.dst, action.local,
                         action.bytes / elem, static_cast<uint32_t>(team_.size()));
}

void RingOperation::fail(strata_status_t code, const std::string& why) {
  team_.mark_broken(why);
  failed_code_ = code;
  failed_ = "grpc_ring " + std::string(sdk::op_name(desc_.op)) + " (" + team_.where() +
            ", call " + std::to_string(sequence_) + "): " + why;
  throw sdk::Error(failed_code_, failed_);
}

}  // namespace strata::grpc_ring
