#include "core/strategy/parameter_server/ps_tcp_server.h"

#include <poll.h>
#include <sys/socket.h>

#include "core/common/logging.h"

namespace strata::ps {
namespace {

constexpr auto kSlice = std::chrono::milliseconds(100);
// A client has this long to say hello before it is dropped.
constexpr auto kHelloTimeout = std::chrono::seconds(10);
// How long serve_until_finished keeps serving after the last worker left,
// so the replies to its final requests are flushed.
constexpr auto kLinger = std::chrono::milliseconds(100);

}  // namespace

StatusOr<std::unique_ptr<PsTcpServer>> PsTcpServer::start(const std::string& address,
                                                          std::shared_ptr<ParameterServer> server) {
  STRATA_ASSIGN_OR_RETURN(tcp_store::HostPort at, tcp_store::parse_host_port(address));
  StatusOr<tcp_store::Socket> listener = tcp_store::listen_on(at, 64);
  if (!listener.ok()) {
    return listener.status().prefixed(server->name() + ": cannot listen on " + address);
  }
  at.port = tcp_store::local_port(*listener);
  std::unique_ptr<PsTcpServer> s(
      new PsTcpServer(std::move(*listener), at.text(), std::move(server)));
  s->acceptor_ = std::thread([raw = s.get()] { raw->accept_loop(); });
  return s;
}

PsTcpServer::PsTcpServer(tcp_store::Socket listener, std::string address,
                         std::shared_ptr<ParameterServer> server)
    : listener_(std::move(listener)), address_(std::move(address)), server_(std::move(server)) {}

PsTcpServer::~PsTcpServer() { stop(); }

void PsTcpServer::stop() {
  stopping_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(connections_);
  }
  for (std::thread& t : threads) t.join();
}

Status PsTcpServer::serve_until_finished(Deadline deadline) {
  Status s = server_->wait_finished(deadline);
  std::this_thread::sleep_for(kLinger);
  stop();
  return s;
}

void PsTcpServer::accept_loop() {
  while (!stopping_) {
    server_->tick();
    pollfd p{listener_.fd(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(kSlice.count())) <= 0) continue;
    tcp_store::Socket sock(::accept4(listener_.fd(), nullptr, nullptr,
                                     SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!sock.valid()) continue;
    std::lock_guard lock(mu_);
    connections_.emplace_back(
        [this, s = std::make_shared<tcp_store::Socket>(std::move(sock))]() mutable {
          serve_connection(std::move(*s));
        });
  }
}

Status PsTcpServer::read_more(const tcp_store::Socket& sock, std::string& in, Deadline deadline) {
  for (;;) {
    if (stopping_) return AbortedError("the parameter server is stopping");
    const Deadline slice = std::min(deadline, Clock::now() + kSlice);
    Status s = tcp_store::receive_some(sock, in, slice);
    if (s.ok() || s.code() != Code::kTimedOut || Clock::now() >= deadline) return s;
  }
}

void PsTcpServer::serve_connection(tcp_store::Socket sock) {
  const std::string peer = tcp_store::peer_address(sock);
  std::string in;
  Hello hello;
  size_t consumed = 0;
  std::string error;
  const Deadline hello_by = Clock::now() + kHelloTimeout;
  Parse p = Parse::kNeedMore;
  while ((p = parse_hello(in, &hello, &consumed, &error)) == Parse::kNeedMore) {
    if (!read_more(sock, in, hello_by).ok()) return;
  }
  if (p == Parse::kBad) {
    STRATA_LOG_WARN("{}: dropped a connection from {}: {}", server_->name(), peer, error);
    return;
  }
  in.erase(0, consumed);
  StatusOr<Session> session = server_->admit(hello, peer);
  const Deadline send_by = Clock::now() + std::chrono::seconds(10);
  if (!session.ok()) {
    (void)tcp_store::send_all(sock, encode_frame(Op::kError, 0, encode_error(session.status())),
                              send_by);
    tcp_store::drain(sock);
    return;
  }
  if (!tcp_store::send_all(sock, encode_frame(Op::kOk, 0, {}), send_by).ok()) return;
  for (;;) {
    Frame request;
    p = parse_frame(in, &request, &consumed, &error);
    if (p == Parse::kBad) {
      STRATA_LOG_WARN("{}: closed the connection of worker {} ({}): {}", server_->name(),
                      session->worker, peer, error);
      (void)tcp_store::send_all(
          sock, encode_frame(Op::kError, 0, encode_error(DataLossError(error))),
          Clock::now() + std::chrono::seconds(1));
      return;
    }
    if (p == Parse::kNeedMore) {
      // Idle connections are normal (a worker busy computing); only stop
      // or the peer closing ends them.
      Status s = read_more(sock, in, Clock::now() + std::chrono::hours(24));
      if (!s.ok()) return;
      continue;
    }
    in.erase(0, consumed);
    Frame reply = server_->handle(*session, request);
    if (!tcp_store::send_all(sock, encode_frame(reply.op, reply.seq, reply.payload),
                             Clock::now() + std::chrono::seconds(30))
             .ok()) {
      return;
    }
  }
}

}  // namespace strata::ps
