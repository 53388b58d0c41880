#include "grpc_store_quota.h"

#include "strata/sdk/error.h"
#include "strata/sdk/size_text.h"

namespace strata::grpc_ring {

using sdk::size_text;

void GrpcStoreQuota::over(std::string_view what, std::string_view key, int rank,
                          const std::string& detail, std::string_view config_key,
                          const std::string& limit) const {
  throw sdk::Error(STRATA_OUT_OF_MEMORY,
                   "rank " + std::to_string(rank) + " cannot " + std::string(what) + " '" +
                       std::string(key) + "': " + detail + " (cluster." +
                       std::string(config_key) + " is " + limit + "); raise cluster." +
                       std::string(config_key) +
                       " in the job's config (read by rank 0, which hosts the store) if the "
                       "job really needs more");
}

void GrpcStoreQuota::admit_set(std::string_view key, bool new_key, uint64_t value_bytes,
                               int rank) const {
  if (value_bytes > limits_.max_value_bytes) {
    over("set", key, rank,
         "its value of " + size_text(value_bytes) + " is over the store's limit for one value",
         "store_max_value", size_text(limits_.max_value_bytes));
  }
  if (new_key) admit_new_key(key, rank);
  // As the TCP store: the value being replaced still counts, so a value
  // never takes the store over its quota even for a moment.
  const uint64_t needed = value_bytes + kValueOverhead + (new_key ? key.size() + kKeyOverhead : 0);
  if (bytes_ > limits_.max_bytes || needed > limits_.max_bytes - bytes_) {
    over("set", key, rank,
         "the job's store holds " + size_text(bytes_) + " and this value of " +
             size_text(value_bytes) + " would take it over its quota",
         "store_max_bytes", size_text(limits_.max_bytes));
  }
}

void GrpcStoreQuota::admit_new_key(std::string_view key, int rank) const {
  if (keys_ >= limits_.max_keys) {
    over("create key", key, rank,
         "the job's store already holds " + std::to_string(keys_) + " keys, its quota",
         "store_max_keys", std::to_string(limits_.max_keys));
  }
  const uint64_t needed = key.size() + kKeyOverhead + kValueOverhead + 32;
  if (bytes_ > limits_.max_bytes || needed > limits_.max_bytes - bytes_) {
    over("create key", key, rank, "the job's store holds " + size_text(bytes_) + ", at its quota",
         "store_max_bytes", size_text(limits_.max_bytes));
  }
}

void GrpcStoreQuota::stored(std::string_view key, bool new_key, uint64_t old_value_bytes,
                            uint64_t value_bytes) {
  if (new_key) {
    bytes_ += key.size() + kKeyOverhead + kValueOverhead;
    ++keys_;
  } else {
    bytes_ -= old_value_bytes;
  }
  bytes_ += value_bytes;
}

}  // namespace strata::grpc_ring
