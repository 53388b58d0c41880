// The body of TcpStoreServer's thread: the connections, the key/value table
// and the parked gets, all touched by that one thread only (no locks on the
// hot path). Other threads reach it only through request_stop(),
// departed() and usage(). Everything a client can make it hold is counted
// in a StoreQuota (tcp_store_quota.h) and bounded by the job's StoreLimits.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/cluster/store_limits.h"
#include "core/cluster/tcp_store_quota.h"
#include "core/cluster/tcp_store_socket.h"
#include "core/cluster/tcp_store_wire.h"
#include "core/common/clock.h"
#include "core/common/status.h"

namespace strata::tcp_store {

class ServerLoop {
 public:
  // `name` is the served address, for log lines.
  ServerLoop(Socket listener, int world, std::string token, std::string name,
             StoreLimits limits);
  Status init();  // the wake-up descriptor; call before run()
  void run();
  // Thread-safe: ends run() once the other ranks are done, or at `by`.
  void request_stop(Deadline by);
  std::set<int> departed() const;
  StoreUsage usage() const {
    StoreUsage u = quota_.usage();
    u.replies = reply_bytes_.load();
    return u;
  }

 private:
  // Part of a reply waiting to be sent: a frame of its own, or a stored
  // value (shared, not copied) after its frame header.
  struct OutPiece {
    std::string own;
    Value shared;
    size_t sent = 0;
    std::string_view bytes() const { return shared ? std::string_view(*shared) : own; }
  };

  struct Conn {
    enum class State { kHello, kReady, kClosing };
    Socket sock;
    std::string peer;
    std::string in;
    std::deque<OutPiece> out;
    size_t out_bytes = 0;
    State state = State::kHello;
    int rank = -1;
    Deadline hello_by, close_by;
    // The request being received: admitted from its head (`admitted`
    // bytes long), a set's reservation counted until it is handled ...
    size_t admitted = 0;
    StoreQuota::Reservation reserved;
    // ... or refused from its head: answered at once, the `skip` bytes
    // left of its frame are read and dropped.
    size_t skip = 0;
    bool waiting = false;  // a get parked until wait_key is set
    std::string wait_key;
    Deadline wait_by;
    bool said_bye = false;
    bool dead = false;
  };

  // tcp_store_server_loop.cc: the connections' lifecycle.
  void accept_all();
  void close(Conn& c);
  void mark_departed(const Conn& c);
  void expire();
  bool peers_finished() const;
  int poll_timeout_ms() const;

  // tcp_store_server_io.cc: bytes in and out.
  void read_from(Conn& c);
  void process(Conn& c);
  bool admit(Conn& c);
  void reply(Conn& c, std::string frame);
  void reply_value(Conn& c, const Value& value);
  // False (and the connection dropped) when `bytes` more would take its
  // replies over kMaxPendingOut.
  bool room_for(Conn& c, size_t bytes);
  void count_queued(Conn& c, size_t bytes);
  void count_sent(Conn& c, size_t bytes);
  void flush(Conn& c);
  void refuse(Conn& c, Code code, const std::string& why);

  // tcp_store_server_requests.cc: what the requests mean.
  bool handle_hello(Conn& c);
  void handle(Conn& c, Request& r);
  StatusOr<int64_t> add(const std::string& key, int64_t delta, int rank);
  void clear_departure(int rank);
  void wake(const std::string& key);

  Socket listener_;
  Socket wake_;
  int world_;
  std::string token_;
  std::string name_;
  // Before the values and connections: it counts them until they are gone.
  StoreQuota quota_;
  std::map<std::string, Value, std::less<>> values_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<int> live_;    // open, authenticated connections per rank
  Deadline accept_paused_until_{};
  std::atomic<uint64_t> reply_bytes_{0};  // every connection's out_bytes; read by usage()

  mutable std::mutex mu_;    // guards the three below
  std::set<int> departed_;
  bool stopping_ = false;
  Deadline stop_by_{};
};

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_SERVER_LOOP_H_
