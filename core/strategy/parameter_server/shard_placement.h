// ShardPlacement: which ps task holds which range of the model. The model
// is one flat float vector (variables in order); each variable is one
// shard, or, when larger than split_bytes, min(ceil(bytes / split_bytes),
// ps count) nearly equal row-free pieces on distinct ps tasks (TF's
// min_max_variable_partitioner with max_partitions = ps count). Shards go
// to ps tasks round-robin in order (TF's default replica_device_setter) or
// by size, each to the least loaded ps so far, biggest first (TF's
// GreedyLoadBalancingStrategy). Every worker computes the same placement
// from the same model, so nobody has to send it.
#ifndef STRATA_CORE_STRATEGY_PARAMETER_SERVER_SHARD_PLACEMENT_H_
#define STRATA_CORE_STRATEGY_PARAMETER_SERVER_SHARD_PLACEMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/status.h"

namespace strata::ps {

struct Shard {
  uint32_t id = 0;
  int ps = 0;
  size_t offset = 0;   // into the flat model
  size_t count = 0;    // floats
  std::string name;    // "dense_0/kernel" or "dense_0/kernel (part 2 of 3)"
};

class ShardPlacement {
 public:
  // sizes[i]: floats in variable i, named names[i]. placement:
  // round_robin | by_size.
  static StatusOr<ShardPlacement> compute(const std::vector<std::string>& names,
                                          const std::vector<size_t>& sizes, int num_ps,
                                          const std::string& placement, uint64_t split_bytes);

  const std::vector<Shard>& shards() const { return shards_; }
  size_t total() const { return total_; }
  int num_ps() const { return num_ps_; }
  // "3 shard(s) over 2 ps: ps 0 4.2 KiB, ps 1 2.6 KiB", for logs.
  std::string describe() const;

 private:
  std::vector<Shard> shards_;
  size_t total_ = 0;
  int num_ps_ = 0;
};

}  // namespace strata::ps

#endif  // STRATA_CORE_STRATEGY_PARAMETER_SERVER_SHARD_PLACEMENT_H_
