#include "core/strategy/parameter_server/in_process_channel.h"

namespace strata::ps {

StatusOr<std::unique_ptr<InProcessChannel>> InProcessChannel::open(
    std::shared_ptr<ParameterServer> server, const Hello& hello) {
  // The hello goes through its encoding too, so a token with odd bytes
  // behaves as it would on a socket.
  Hello decoded;
  size_t consumed = 0;
  std::string error;
  const std::string bytes = encode_hello(hello);
  if (parse_hello(bytes, &decoded, &consumed, &error) != Parse::kDone) {
    return InvalidArgumentError("bad hello: " + error);
  }
  STRATA_ASSIGN_OR_RETURN(Session session, server->admit(decoded, "in-process"));
  return std::unique_ptr<InProcessChannel>(new InProcessChannel(std::move(server), session));
}

InProcessChannel::InProcessChannel(std::shared_ptr<ParameterServer> server, Session session)
    : server_(std::move(server)), session_(std::move(session)) {}

StatusOr<Frame> InProcessChannel::call(Op op, std::string payload, Deadline deadline) {
  if (severed_) {
    return UnavailableError("the parameter server is gone (connection severed)");
  }
  if (Clock::now() >= deadline) return TimedOutError("deadline passed before the request");
  std::lock_guard lock(mu_);
  const uint64_t seq = ++seq_;
  const std::string frame = encode_frame(op, seq, payload);
  STRATA_ASSIGN_OR_RETURN(Frame request, decode_body(std::string_view(frame).substr(4)));
  Frame reply = server_->handle(session_, request);
  if (reply.seq != seq) {
    return DataLossError("reply to request " + std::to_string(seq) + " carries sequence " +
                         std::to_string(reply.seq));
  }
  if (reply.op == Op::kError) return decode_error(reply.payload);
  return reply;
}

}  // namespace strata::ps
