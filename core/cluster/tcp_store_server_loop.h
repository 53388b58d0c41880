// The body of TcpStoreServer's thread: the connections, the key/value table
// and the parked gets, all touched by that one thread only (no locks on the
// hot path). Other threads reach it only through request_stop() and
// departed().
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/cluster/tcp_store_socket.h"
#include "core/cluster/tcp_store_wire.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata::tcp_store {

class ServerLoop {
 public:
  // `name` is the served address, for log lines.
  ServerLoop(Socket listener, int world, std::string token, std::string name);
  Status init();  // the wake-up descriptor; call before run()
  void run();
  // Thread-safe: ends run() once the other ranks are done, or at `by`.
  void request_stop(Deadline by);
  std::set<int> departed() const;

 private:
  struct Conn {
    enum class State { kHello, kReady, kClosing };
    Socket sock;
    std::string peer;
    std::string in, out;
    State state = State::kHello;
    int rank = -1;
    Deadline hello_by, close_by;
    bool waiting = false;  // a get parked until wait_key is set
    std::string wait_key;
    Deadline wait_by;
    bool said_bye = false;
    bool dead = false;
  };

  void accept_all();
  void read_from(Conn& c);
  void process(Conn& c);
  bool handle_hello(Conn& c);
  void handle(Conn& c, tcp_store::Request& r);
  StatusOr<int64_t> add(const std::string& key, int64_t delta);
  void wake(const std::string& key);
  void reply(Conn& c, std::string frame);
  void flush(Conn& c);
  void refuse(Conn& c, Code code, const std::string& why);
  void close(Conn& c);
  void expire();
  bool peers_finished() const;
  int poll_timeout_ms() const;

  Socket listener_;
  Socket wake_;
  int world_;
  std::string token_;
  std::string name_;
  std::map<std::string, std::string, std::less<>> values_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<int> live_;    // open, authenticated connections per rank
  Deadline accept_paused_until_{};

  mutable std::mutex mu_;    // guards the three below
  std::set<int> departed_;
  bool stopping_ = false;
  Deadline stop_by_{};
};

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_
