#include "ring_link.h"

#include <grpcpp/generic/generic_stub.h>

#include "strata/sdk/error.h"
#include "wire.h"

namespace strata::grpc_ring {
namespace {

strata_status_t status_of(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED: return STRATA_PERMISSION_DENIED;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return STRATA_TIMED_OUT;
    default: return STRATA_PEER_FAILED;
  }
}

}  // namespace

RingLink::RingLink(LinkConfig config, Signal& signal)
    : config_(std::move(config)), signal_(signal) {
  // Binary metadata (-bin): gRPC base64-encodes it, so a token may hold
  // any byte.
  context_.AddMetadata(kTokenKey, config_.token);
  context_.AddMetadata(kTeamKey, std::to_string(config_.team_id));
  context_.AddMetadata(kRankKey, std::to_string(config_.rank));
}

void RingLink::open(std::chrono::steady_clock::time_point deadline) {
  // wait_for_ready: the neighbour listens before it publishes its address,
  // but a slow start of the channel must not fail the team at once.
  // No deadline on the stream: it lives as long as the team.
  context_.set_wait_for_ready(true);
  grpc::GenericStub stub(config_.channel);
  stub.PrepareBidiStreamingCall(&context_, kStreamMethod, grpc::StubOptions(), this);
  // No hold: a read is always pending until the neighbour ends the stream,
  // and nothing is started after that (read_ended_), so OnDone cannot come
  // while this object may still start an operation.
  StartRead(&reply_);
  {
    std::lock_guard lock(mu_);
    started_ = true;
  }
  StartCall();
  std::unique_lock lock(mu_);
  const std::string who = "rank " + std::to_string(config_.rank) + " -> rank " +
                          std::to_string(config_.peer) + " at " + config_.peer_address;
  if (!cv_.wait_until(lock, deadline, [&] { return welcomed_ || done_ || !error_.empty(); })) {
    throw sdk::Error(STRATA_TIMED_OUT,
                     "grpc_ring: " + who +
                         ": the neighbour did not accept the ring stream by the team's "
                         "deadline (is it alive and reachable?)");
  }
  if (!welcomed_) {
    throw sdk::Error(error_code_, "grpc_ring: " + who + ": " + error_);
  }
}

void RingLink::OnReadDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    if (ok) {
      welcomed_ = true;
      // Keep one read pending: it ends (ok = false) when the neighbour does.
      StartRead(&reply_);
    } else {
      read_ended_ = true;
      if (welcomed_ && !closing_) {
        fail(STRATA_PEER_FAILED, "the neighbour ended the stream (its process exited, its "
                                 "team was destroyed, or the connection broke)");
      }
    }
    cv_.notify_all();
  }
  signal_.notify();
}

void RingLink::send(grpc::ByteBuffer&& message) {
  std::lock_guard lock(mu_);
  queue_.push_back(std::move(message));
  if (!writing_ && error_.empty() && !read_ended_) {
    writing_ = true;
    StartWrite(&queue_.front());
  }
}

void RingLink::OnWriteDone(bool ok) {
  {
    std::lock_guard lock(mu_);
    writing_ = false;
    if (!ok) {
      fail(STRATA_PEER_FAILED, "writing to the neighbour failed (the stream broke)");
    } else {
      queue_.pop_front();
      ++completed_;
      if (!queue_.empty() && error_.empty() && !read_ended_) {
        writing_ = true;
        StartWrite(&queue_.front());
      } else if (queue_.empty() && closing_ && !read_ended_) {
        StartWritesDone();
      }
    }
    cv_.notify_all();
  }
  signal_.notify();
}

void RingLink::OnDone(const grpc::Status& status) {
  std::lock_guard lock(mu_);
  if (!welcomed_ && !status.ok()) {
    fail(status_of(status.error_code()),
         status.error_code() == grpc::StatusCode::PERMISSION_DENIED
             ? "the neighbour refused the stream (a different job token, or not the "
               "team member it expected)"
             : "could not open the stream: " + status.error_message());
  } else if (!closing_) {
    fail(STRATA_PEER_FAILED, "the stream ended: " +
                                 (status.ok() ? std::string("the neighbour closed it")
                                              : status.error_message()));
  }
  // Everything before done_: the destructor may run as soon as it is set
  // and the lock released, and the Signal belongs to the team it ends.
  signal_.notify();
  done_ = true;
  cv_.notify_all();
}

uint64_t RingLink::completed() const {
  std::lock_guard lock(mu_);
  return completed_;
}

void RingLink::check() const {
  std::lock_guard lock(mu_);
  if (!error_.empty()) {
    throw sdk::Error(error_code_, "grpc_ring: the stream from rank " +
                                      std::to_string(config_.rank) + " to rank " +
                                      std::to_string(config_.peer) + " failed: " + error_);
  }
}

void RingLink::fail(strata_status_t code, const std::string& why) {
  if (!error_.empty()) return;
  error_code_ = code;
  error_ = why;
}

RingLink::~RingLink() {
  std::unique_lock lock(mu_);
  if (started_ && !done_) {
    closing_ = true;
    if (!writing_ && welcomed_ && !read_ended_) StartWritesDone();
    // The grace covers messages still queued for a neighbour that is
    // finishing its own last call; then the stream is cut.
    if (!cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return done_; })) {
      lock.unlock();
      context_.TryCancel();
      lock.lock();
      cv_.wait(lock, [&] { return done_; });  // gRPC promises OnDone after a cancel
    }
  }
}

}  // namespace strata::grpc_ring
