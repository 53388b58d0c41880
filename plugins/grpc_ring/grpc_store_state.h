// The keys and values of the "grpc" store, held by rank 0's server, and the
// gets parked on keys that do not exist yet. A parked get costs no thread:
// it is a reply callback, answered by the set that creates its key, or by
// one timer thread when its server-side wait (at most
// store_wire::kMaxServerWaitMs) is over; the client then asks again until
// its own deadline. That keeps every gRPC thread free and every wait
// bounded. What the job can make it hold is bounded by GrpcStoreQuota.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_STATE_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_STATE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "grpc_store_quota.h"

namespace strata::grpc_ring {

class GrpcStoreState {
 public:
  using Clock = std::chrono::steady_clock;
  // Answers a parked get: the value, or nullptr when its wait ended first
  // (a pointer, valid during the call: the value is not copied per waiter).
  using Reply = std::function<void(const std::string* value)>;

  // One parked get. Whoever claims it first (a set, the timer, the call's
  // own cancellation) answers it; the others leave it alone.
  class Waiter {
   public:
    explicit Waiter(Reply reply) : reply_(std::move(reply)) {}
    bool claim() { return !claimed_.exchange(true); }
    void answer(const std::string* value) { reply_(value); }

   private:
    std::atomic<bool> claimed_{false};
    Reply reply_;
  };

  explicit GrpcStoreState(GrpcStoreLimits limits = {});
  // Answers every parked get "not yet" and stops the timer thread.
  ~GrpcStoreState();
  GrpcStoreState(const GrpcStoreState&) = delete;
  GrpcStoreState& operator=(const GrpcStoreState&) = delete;

  // Throws sdk::Error(OUT_OF_MEMORY) when the job's limits do not allow
  // it, naming `rank` (GrpcStoreQuota).
  void set(const std::string& key, std::string value, int rank);
  // The value when the key exists; else parks `waiter` for up to `wait`
  // and returns nullopt (a zero wait answers "not yet" at once).
  std::optional<std::string> get_or_park(const std::string& key,
                                         std::chrono::milliseconds wait,
                                         const std::shared_ptr<Waiter>& waiter);
  // The new value; throws sdk::Error(INVALID_ARGUMENT) when the key holds
  // something that is not an integer, or the sum would overflow, and
  // OUT_OF_MEMORY when the limits allow no new key.
  int64_t add(const std::string& key, int64_t delta, int rank);

  // Answers every parked get "not yet" now (the server is closing) and
  // answers later gets at once.
  void release_all();
  // True once release_all ran: a "not yet" then means "closing".
  bool releasing();

  // What the store holds, as its quota counts it.
  uint64_t held_bytes();
  uint64_t held_keys();

 private:
  void expire_loop();

  std::mutex mu_;
  std::condition_variable timer_cv_;
  std::map<std::string, std::string> values_;
  GrpcStoreQuota quota_;
  std::multimap<std::string, std::shared_ptr<Waiter>> by_key_;
  std::multimap<Clock::time_point, std::pair<std::string, std::shared_ptr<Waiter>>> by_deadline_;
  bool releasing_ = false;
  bool stop_ = false;
  std::thread timer_;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_STATE_H_
