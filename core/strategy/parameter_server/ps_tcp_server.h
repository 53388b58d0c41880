// PsTcpServer: serves one ParameterServer over TCP. A thread accepts; each
// connection gets its own thread, so a pull parked on a synchronous round
// never holds up another worker's heartbeat. Every wait is a short poll
// that also checks for stop, so stop() returns within a fraction of a
// second whatever the clients do.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_TCP_SERVER_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_TCP_SERVER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/cluster/tcp_store_socket.h"
#include "core/strategy/parameter_server/parameter_server.h"

namespace strata::ps {

class PsTcpServer {
 public:
  // Listens on `address` ("127.0.0.1:0" picks a port) and starts serving.
  static StatusOr<std::unique_ptr<PsTcpServer>> start(const std::string& address,
                                                      std::shared_ptr<ParameterServer> server);
  ~PsTcpServer();  // stop()
  PsTcpServer(const PsTcpServer&) = delete;
  PsTcpServer& operator=(const PsTcpServer&) = delete;

  // "127.0.0.1:41234", with the port actually bound.
  const std::string& address() const { return address_; }
  // Until every worker is done or dead (then stops), or `deadline`.
  Status serve_until_finished(Deadline deadline);
  void stop();

 private:
  PsTcpServer(tcp_store::Socket listener, std::string address,
              std::shared_ptr<ParameterServer> server);
  void accept_loop();
  void serve_connection(tcp_store::Socket sock);
  // Reads one hello or frame, polling in short slices to notice stop.
  Status read_more(const tcp_store::Socket& sock, std::string& in, Deadline deadline);

  tcp_store::Socket listener_;
  std::string address_;
  std::shared_ptr<ParameterServer> server_;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;  // guards connections_
  std::vector<std::thread> connections_;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_PS_TCP_SERVER_H_
