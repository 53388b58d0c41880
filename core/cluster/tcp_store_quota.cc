#include "core/cluster/tcp_store_quota.h"

#include "core/common/units.h"

namespace strata::tcp_store {

Status StoreQuota::over(std::string_view what, std::string_view key, int rank,
                        const std::string& detail, std::string_view config_key,
                        const std::string& limit) const {
  return OutOfMemoryError("rank " + std::to_string(rank) + " cannot " + std::string(what) +
                          " '" + std::string(key) + "': " + detail + " (cluster." +
                          std::string(config_key) + " is " + limit + "); raise cluster." +
                          std::string(config_key) +
                          " in the job's config (read by rank 0, which hosts the store) if the "
                          "job really needs more");
}

StatusOr<StoreQuota::Reservation> StoreQuota::admit_set(std::string_view key, bool new_key,
                                                        uint64_t value_bytes,
                                                        uint64_t frame_bytes, int rank) {
  if (value_bytes > limits_.max_value_bytes) {
    return over("set", key, rank,
                "its value of " + format_size(value_bytes) +
                    " is over the store's limit for one value",
                "store_max_value", format_size(limits_.max_value_bytes));
  }
  if (new_key) STRATA_RETURN_IF_ERROR(admit_new_key(key, rank));
  const uint64_t held = bytes_.load();
  const uint64_t needed =
      frame_bytes + kValueOverhead + (new_key ? key.size() + kKeyOverhead : 0);
  if (held > limits_.max_bytes || needed > limits_.max_bytes - held) {
    return over("set", key, rank,
                "the job's store holds " + format_size(held) + " and this value of " +
                    format_size(value_bytes) + " would take it over its quota",
                "store_max_bytes", format_size(limits_.max_bytes));
  }
  const Reservation r{needed, new_key ? 1u : 0u};
  bytes_ += r.bytes;
  pending_keys_ += r.keys;
  return r;
}

Status StoreQuota::admit_new_key(std::string_view key, int rank) const {
  const uint64_t keys = keys_.load() + pending_keys_;
  if (keys >= limits_.max_keys) {
    return over("create key", key, rank,
                "the job's store already holds " + std::to_string(keys) + " keys, its quota",
                "store_max_keys", std::to_string(limits_.max_keys));
  }
  const uint64_t held = bytes_.load();
  const uint64_t needed = key.size() + kKeyOverhead + kValueOverhead + 32;
  if (held > limits_.max_bytes || needed > limits_.max_bytes - held) {
    return over("create key", key, rank,
                "the job's store holds " + format_size(held) + ", at its quota",
                "store_max_bytes", format_size(limits_.max_bytes));
  }
  return Status::Ok();
}

Value StoreQuota::make_value(std::string text) {
  bytes_ += text.size() + kValueOverhead;
  return Value(new std::string(std::move(text)), [this](const std::string* v) {
    bytes_ -= v->size() + kValueOverhead;
    delete v;
  });
}

}  // namespace strata::tcp_store
