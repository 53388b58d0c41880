// TcpChannel: a PsChannel over one TCP connection, built on the TCP
// store's deadline-bounded sockets. connect() retries while the ps is not
// listening yet (tasks start in any order) until its deadline; a refusal
// by the ps itself (wrong job token) is returned at once.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_TCP_CHANNEL_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_TCP_CHANNEL_H_

#include <memory>
#include <mutex>
#include <string>

#include "core/cluster/tcp_store_socket.h"
#include "core/strategy/parameter_server/ps_channel.h"

namespace strata::ps {

class TcpChannel final : public PsChannel {
 public:
  static StatusOr<std::unique_ptr<TcpChannel>> connect(const std::string& address,
                                                       const Hello& hello, Deadline deadline);
  ~TcpChannel() override;
  StatusOr<Frame> call(Op op, std::string payload, Deadline deadline) override;
  const std::string& address() const override { return address_; }

 private:
  TcpChannel(tcp_store::Socket socket, std::string address);
  // The next whole frame from the socket.
  StatusOr<Frame> read_frame(Deadline deadline);

  std::mutex mu_;  // one request at a time; guards everything below
  tcp_store::Socket socket_;
  std::string address_;
  std::string in_;
  uint64_t seq_ = 0;
  Status broken_;  // the first transport failure, repeated after
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_TCP_CHANNEL_H_
