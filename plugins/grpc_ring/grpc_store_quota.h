// What the "grpc" store holds on its job's behalf (every key with its
// bookkeeping, every stored value), bounded by the job's cluster.store_max_*
// settings, which core hands every plugin (strata/abi/registrar.h). The
// accounting and the words are the TCP store's (core/cluster/
// tcp_store_quota.cc), so a job can switch stores without surprises. Not
// thread-safe: GrpcStoreState calls it under its own lock.
#ifndef STRATA_PLUGINS_GRPC_RING_GRPC_STORE_QUOTA_H_
#define STRATA_PLUGINS_GRPC_RING_GRPC_STORE_QUOTA_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::grpc_ring {

// The job's cluster.store_max_*; the defaults are core's (docs/CONFIG.md).
struct GrpcStoreLimits {
  uint64_t max_bytes = uint64_t{256} << 20;
  uint64_t max_keys = 1'000'000;
  uint64_t max_value_bytes = uint64_t{16} << 20;
};

class GrpcStoreQuota {
 public:
  // What a key costs beyond its bytes (map node, strings), and a value.
  static constexpr uint64_t kKeyOverhead = 128;
  static constexpr uint64_t kValueOverhead = 64;

  explicit GrpcStoreQuota(GrpcStoreLimits limits) : limits_(limits) {}

  // Whether `rank` may set `key` (`new_key` when it does not exist yet) to
  // a value of `value_bytes`. Throws sdk::Error(OUT_OF_MEMORY) naming the
  // key, the rank, the limit and the config key that raises it.
  void admit_set(std::string_view key, bool new_key, uint64_t value_bytes, int rank) const;
  // Whether an add by `rank` may create `key`; throws like admit_set.
  void admit_new_key(std::string_view key, int rank) const;

  // `key` now holds `value_bytes`, in place of `old_value_bytes` (when not
  // `new_key`).
  void stored(std::string_view key, bool new_key, uint64_t old_value_bytes,
              uint64_t value_bytes);

  uint64_t bytes() const { return bytes_; }
  uint64_t keys() const { return keys_; }

 private:
  [[noreturn]] void over(std::string_view what, std::string_view key, int rank,
                         const std::string& detail, std::string_view config_key,
                         const std::string& limit) const;

  const GrpcStoreLimits limits_;
  uint64_t bytes_ = 0;
  uint64_t keys_ = 0;
};

}  // namespace strata::grpc_ring

#endif  // STRATA_PLUGINS_GRPC_RING_GRPC_STORE_QUOTA_H_
