#include "core/strategy/parameter_server/tcp_channel.h"

#include <algorithm>
#include <thread>

namespace strata::ps {

StatusOr<std::unique_ptr<TcpChannel>> TcpChannel::connect(const std::string& address,
                                                          const Hello& hello,
                                                          Deadline deadline) {
  STRATA_ASSIGN_OR_RETURN(tcp_store::HostPort to, tcp_store::parse_host_port(address));
  auto backoff = std::chrono::milliseconds(20);
  Status last;
  for (;;) {
    const Deadline attempt_by = std::min(deadline, Clock::now() + std::chrono::seconds(5));
    StatusOr<tcp_store::Socket> sock = tcp_store::connect_once(to, attempt_by);
    if (sock.ok()) {
      std::unique_ptr<TcpChannel> channel(new TcpChannel(std::move(*sock), address));
      Status sent = tcp_store::send_all(channel->socket_, encode_hello(hello), deadline);
      StatusOr<Frame> answer = sent.ok() ? channel->read_frame(deadline) : StatusOr<Frame>(sent);
      if (answer.ok() && answer->op == Op::kOk) return channel;
      if (answer.ok() && answer->op == Op::kError) return decode_error(answer->payload);
      last = answer.ok() ? DataLossError("unexpected answer to the hello") : answer.status();
      // A ps that closed on us right after accepting may be restarting.
      if (last.code() != Code::kUnavailable) return last;
    } else {
      last = sock.status();
    }
    if (Clock::now() + backoff >= deadline) {
      return TimedOutError("cannot reach the parameter server at " + address + " (" +
                           last.message() + ")");
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  }
}

TcpChannel::TcpChannel(tcp_store::Socket socket, std::string address)
    : socket_(std::move(socket)), address_(std::move(address)) {}

TcpChannel::~TcpChannel() { tcp_store::drain(socket_); }

StatusOr<Frame> TcpChannel::read_frame(Deadline deadline) {
  for (;;) {
    Frame frame;
    size_t consumed = 0;
    std::string error;
    const Parse p = parse_frame(in_, &frame, &consumed, &error);
    if (p == Parse::kDone) {
      in_.erase(0, consumed);
      return frame;
    }
    if (p == Parse::kBad) return DataLossError("garbled reply from " + address_ + ": " + error);
    STRATA_RETURN_IF_ERROR(tcp_store::receive_some(socket_, in_, deadline));
  }
}

StatusOr<Frame> TcpChannel::call(Op op, std::string payload, Deadline deadline) {
  std::lock_guard lock(mu_);
  if (!broken_.ok()) return broken_;
  const uint64_t seq = ++seq_;
  StatusOr<Frame> reply = [&]() -> StatusOr<Frame> {
    STRATA_RETURN_IF_ERROR(tcp_store::send_all(socket_, encode_frame(op, seq, payload), deadline));
    return read_frame(deadline);
  }();
  if (!reply.ok()) {
    broken_ = reply.status();
    return broken_;
  }
  if (reply->seq != seq) {
    broken_ = DataLossError("reply to request " + std::to_string(seq) + " from " + address_ +
                            " carries sequence " + std::to_string(reply->seq));
    return broken_;
  }
  if (reply->op == Op::kError) return decode_error(reply->payload);
  if (reply->op != Op::kOk && reply->op != Op::kNotReady) {
    broken_ = DataLossError(std::string("reply op '") + op_name(reply->op) + "' from " + address_);
    return broken_;
  }
  return reply;
}

}  // namespace strata::ps
