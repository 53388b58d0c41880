#include "tcp_link.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "strata/sdk/error.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/types.h"
#include "tcp_handshake.h"

namespace strata::grpc_ring {
namespace {

constexpr int kMaxIov = 16;  // header and payload of up to 8 queued messages per writev

std::string who(int peer, const std::string& address) {
  return "grpc_ring: the tcp data connection to rank " + std::to_string(peer) + " at " + address;
}

}  // namespace

TcpLink::TcpLink(Fd to_right, Fd from_left, TcpLinkConfig config)
    : right_fd_(std::move(to_right)), left_fd_(std::move(from_left)), config_(config),
      queue_(std::max<uint32_t>(config.chunks_in_flight, 1)) {}

Fd TcpLink::dial(const std::string& address, uint64_t team_id, int rank, int peer,
                 const std::string& token, SteadyTime deadline) {
  Fd fd = dial_tcp(address, deadline, who(peer, address));
  const std::string hello = encode_handshake(team_id, rank, token);
  std::string error;
  if (!write_fully(fd.get(), hello.data(), hello.size(), deadline, &error)) {
    throw sdk::Error(STRATA_PEER_FAILED, who(peer, address) + ": the handshake could not be "
                                                              "sent: " + error);
  }
  return fd;
}

void TcpLink::await_welcome(int fd, int peer, const std::string& address, SteadyTime deadline) {
  std::byte welcome[kWelcomeBytes];
  std::string error;
  if (read_fully(fd, welcome, sizeof welcome, deadline, &error) && is_welcome(welcome)) return;
  if (error == "timed out") {
    throw sdk::Error(STRATA_TIMED_OUT, who(peer, address) + ": the neighbour did not accept it "
                                                            "by the team's deadline");
  }
  throw sdk::Error(STRATA_PERMISSION_DENIED,
                   who(peer, address) + ": the neighbour refused it (a different job token, "
                                        "or not the team member it expected)" +
                       (error.empty() ? "" : ": " + error));
}

void TcpLink::send(const Header& header, const std::byte* payload) {
  if (queued_ == queue_.size()) {
    throw sdk::Error(STRATA_INTERNAL, "grpc_ring tcp data plane: more than " +
                                          std::to_string(queue_.size()) +
                                          " messages queued (chunks_in_flight)");
  }
  Outgoing& o = queued(queued_++);
  write_header(header, o.head);
  o.payload = payload;
  o.bytes = header.bytes;
  o.written = 0;
  flush();
}

void TcpLink::flush() {
  while (queued_ > 0 && send_error_.empty()) {
    iovec iov[kMaxIov];
    int n = 0;
    for (size_t i = 0; i < queued_ && n + 2 <= kMaxIov; ++i) {
      Outgoing& o = queued(i);
      if (o.written < kHeaderBytes) {
        iov[n++] = {o.head + o.written, kHeaderBytes - o.written};
      }
      const uint64_t sent = o.written > kHeaderBytes ? o.written - kHeaderBytes : 0;
      iov[n++] = {const_cast<std::byte*>(o.payload) + sent, o.bytes - sent};
    }
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<size_t>(n);
    const ssize_t w = ::sendmsg(right_fd_.get(), &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) fail_send(std::strerror(errno));
      return;
    }
    uint64_t left = static_cast<uint64_t>(w);
    while (left > 0) {
      Outgoing& o = queued(0);
      const uint64_t take = std::min(left, kHeaderBytes + o.bytes - o.written);
      o.written += take;
      left -= take;
      if (o.written == kHeaderBytes + o.bytes) {
        first_ = (first_ + 1) % queue_.size();
        --queued_;
        ++completed_;
      }
    }
  }
}

bool TcpLink::read_some(std::byte* into, uint64_t want, uint64_t* got) {
  if (!receive_error_.empty()) fail_receive(receive_error_);
  const ssize_t n = ::recv(left_fd_.get(), into, want, MSG_DONTWAIT);
  if (n > 0) {
    *got += static_cast<uint64_t>(n);
    return true;
  }
  if (n == 0) {
    fail_receive("the connection from rank " + std::to_string(config_.left) +
                 " ended (its process exited or lost the connection, or its team was "
                 "destroyed)");
  }
  if (errno == EAGAIN || errno == EINTR) return false;
  fail_receive("the connection from rank " + std::to_string(config_.left) +
               " failed: " + std::strerror(errno));
}

bool TcpLink::receive(const Header& want, const Delivery& delivery) {
  flush();
  while (head_have_ < kHeaderBytes) {
    if (!read_some(head_ + head_have_, kHeaderBytes - head_have_, &head_have_)) return false;
    if (head_have_ == kHeaderBytes) {
      // Checked before a byte of payload is read: a refused message never
      // touches the user's buffers.
      if (const Header got = read_header(head_); got != want) {
        check_header(got, want, "a message from rank " + std::to_string(config_.left));
      }
      payload_have_ = reduced_ = 0;
      if (delivery.local != nullptr && staging_.size() < want.bytes) staging_.resize(want.bytes);
    }
  }
  while (payload_have_ < want.bytes) {
    std::byte* into = delivery.local == nullptr ? delivery.dst : staging_.data();
    if (!read_some(into + payload_have_, want.bytes - payload_have_, &payload_have_)) {
      return false;
    }
    if (delivery.local != nullptr) reduce_arrived(want, delivery);
    flush();  // keep the right neighbour fed while a large chunk arrives
  }
  head_have_ = 0;
  return true;
}

void TcpLink::reduce_arrived(const Header& want, const Delivery& delivery) {
  const size_t elem = sdk::dtype_size(delivery.dtype);
  const uint64_t whole = payload_have_ == want.bytes ? want.bytes : payload_have_ / elem * elem;
  if (whole <= reduced_) return;
  const void* srcs[2] = {delivery.local + reduced_, staging_.data() + reduced_};
  if (!sdk::reduce_host(delivery.dtype, delivery.redop, delivery.dst + reduced_, srcs, 2,
                        (whole - reduced_) / elem, delivery.divisor)) {
    throw sdk::Error(STRATA_INTERNAL, std::string("no host kernel for ") +
                                          sdk::dtype_name(delivery.dtype) + " " +
                                          sdk::redop_name(delivery.redop));
  }
  reduced_ = whole;
}

void TcpLink::check_send() const {
  if (!send_error_.empty()) {
    throw sdk::Error(STRATA_PEER_FAILED, "grpc_ring: the tcp data connection from rank " +
                                             std::to_string(config_.rank) + " to rank " +
                                             std::to_string(config_.right) + " failed: " +
                                             send_error_);
  }
}

void TcpLink::wait(uint64_t, SteadyTime deadline, bool reading, bool sending) {
  pollfd fds[2];
  nfds_t n = 0;
  if (reading && receive_error_.empty()) fds[n++] = {left_fd_.get(), POLLIN, 0};
  const bool watch_right = sending && send_error_.empty();
  // POLLIN on the outgoing connection: the neighbour never writes on it,
  // so readable means it closed or reset (its process died).
  if (watch_right) {
    fds[n++] = {right_fd_.get(), static_cast<short>(POLLIN | (queued_ > 0 ? POLLOUT : 0)), 0};
  }
  const auto left = std::max(deadline - std::chrono::steady_clock::now(),
                             std::chrono::steady_clock::duration::zero());
  if (n == 0) {  // nothing to wait on: test() reports what ended the call
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        left, std::chrono::milliseconds(1)));
    return;
  }
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
  const timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  if (::ppoll(fds, n, &timeout, nullptr) <= 0 || !watch_right) return;
  if ((fds[n - 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) return;
  char byte = 0;
  const ssize_t r = ::recv(right_fd_.get(), &byte, 1, MSG_DONTWAIT);
  if (r == 0) {
    fail_send("rank " + std::to_string(config_.right) +
              " closed the connection (its process exited, or its team was destroyed)");
  } else if (r > 0) {
    fail_send("rank " + std::to_string(config_.right) + " sent bytes on a one-way connection");
  } else if (errno != EAGAIN && errno != EINTR) {
    fail_send(std::strerror(errno));
  }
}

void TcpLink::fail_send(const std::string& why) {
  if (send_error_.empty()) send_error_ = why;
}

void TcpLink::fail_receive(const std::string& why) {
  if (receive_error_.empty()) receive_error_ = why;
  throw sdk::Error(STRATA_PEER_FAILED, "grpc_ring: " + receive_error_);
}

}  // namespace strata::grpc_ring
