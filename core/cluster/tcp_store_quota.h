// What the TCP store holds on its job's behalf, counted against the job's
// StoreLimits: every key (with its bookkeeping), every value buffer still
// alive (stored, or being sent to a client after it was overwritten) and
// every request being received. Requests are admitted from their header
// before their body is buffered, so a frame that claims more than the quota
// allows is refused without being allocated.
#ifndef STRATA_CORE_CLUSTER_TCP_STORE_QUOTA_H_
#define STRATA_CORE_CLUSTER_TCP_STORE_QUOTA_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/cluster/store_limits.h"
#include "core/common/status.h"

namespace strata::tcp_store {

// A stored value. Shared with the replies that carry it, so a get costs no
// copy; its bytes stay counted until the last holder lets go.
using Value = std::shared_ptr<const std::string>;

struct StoreUsage {
  uint64_t bytes = 0;
  uint64_t keys = 0;
  // Replies waiting to be sent (a value in one is in `bytes` too). Not
  // counted against the quota: a connection holds one at most, since it is
  // not read while its reply waits.
  uint64_t replies = 0;
};

class StoreQuota {
 public:
  // What a key costs beyond its bytes (map node, strings, shared buffer),
  // and what a value buffer costs beyond its bytes.
  static constexpr uint64_t kKeyOverhead = 128;
  static constexpr uint64_t kValueOverhead = 64;

  explicit StoreQuota(StoreLimits limits) : limits_(limits) {}
  StoreQuota(const StoreQuota&) = delete;
  StoreQuota& operator=(const StoreQuota&) = delete;

  const StoreLimits& limits() const { return limits_; }

  // What a set admitted from its head holds until it is stored: its frame
  // while it arrives, and room for the key and value it will add.
  struct Reservation {
    uint64_t bytes = 0;
    uint64_t keys = 0;
  };

  // Whether `rank` may send a set of `value_bytes` under `key` in a frame
  // of `frame_bytes` (buffered before it is stored); `new_key` when the key
  // does not exist yet. On OK the reservation is counted until release().
  // OUT_OF_MEMORY names the key, the rank, the limit and the config key
  // that raises it.
  StatusOr<Reservation> admit_set(std::string_view key, bool new_key, uint64_t value_bytes,
                                  uint64_t frame_bytes, int rank);
  // Whether an add by `rank` may create `key`.
  Status admit_new_key(std::string_view key, int rank) const;
  void release(const Reservation& r) {
    bytes_ -= r.bytes;
    pending_keys_ -= r.keys;
  }

  void add_key(std::string_view key) {
    bytes_ += key.size() + kKeyOverhead;
    ++keys_;
  }
  // A counted buffer holding `text`; released when its last holder goes.
  // The quota must outlive every Value it made.
  Value make_value(std::string text);

  // Safe from any thread.
  StoreUsage usage() const { return {bytes_.load(), keys_.load()}; }

 private:
  Status over(std::string_view what, std::string_view key, int rank, const std::string& detail,
              std::string_view config_key, const std::string& limit) const;

  const StoreLimits limits_;
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> keys_{0};
  uint64_t pending_keys_ = 0;  // reserved by admitted sets; server thread only
};

}  // namespace strata::tcp_store

#endif  // STRATA_CORE_CLUSTER_TCP_STORE_QUOTA_H_
