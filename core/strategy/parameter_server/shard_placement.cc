#include "core/strategy/parameter_server/shard_placement.h"

#include <algorithm>
#include <numeric>

namespace strata::ps {

StatusOr<ShardPlacement> ShardPlacement::compute(const std::vector<std::string>& names,
                                                 const std::vector<size_t>& sizes, int num_ps,
                                                 const std::string& placement,
                                                 uint64_t split_bytes) {
  if (num_ps < 1) return InvalidArgumentError("a parameter server job needs at least one ps task");
  if (names.size() != sizes.size()) {
    return InvalidArgumentError("shard placement: " + std::to_string(names.size()) +
                                " names for " + std::to_string(sizes.size()) + " variables");
  }
  if (placement != "round_robin" && placement != "by_size") {
    return InvalidArgumentError("variable_placement '" + placement +
                                "'; expected round_robin or by_size");
  }
  if (split_bytes < sizeof(float)) split_bytes = sizeof(float);
  ShardPlacement out;
  out.num_ps_ = num_ps;
  size_t offset = 0;
  for (size_t v = 0; v < sizes.size(); ++v) {
    const uint64_t bytes = uint64_t{sizes[v]} * sizeof(float);
    const uint64_t wanted = (bytes + split_bytes - 1) / split_bytes;
    const size_t parts = static_cast<size_t>(
        std::max<uint64_t>(1, std::min<uint64_t>({wanted, uint64_t(num_ps), sizes[v]})));
    for (size_t p = 0; p < parts; ++p) {
      // Nearly equal pieces: the first (size % parts) get one more.
      const size_t count = sizes[v] / parts + (p < sizes[v] % parts ? 1 : 0);
      Shard s;
      s.id = static_cast<uint32_t>(out.shards_.size());
      s.offset = offset;
      s.count = count;
      s.name = parts == 1 ? names[v]
                          : names[v] + " (part " + std::to_string(p + 1) + " of " +
                                std::to_string(parts) + ")";
      offset += count;
      out.shards_.push_back(std::move(s));
    }
  }
  out.total_ = offset;
  if (placement == "round_robin") {
    for (Shard& s : out.shards_) s.ps = static_cast<int>(s.id % static_cast<uint32_t>(num_ps));
    return out;
  }
  std::vector<size_t> order(out.shards_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return out.shards_[a].count > out.shards_[b].count;
  });
  std::vector<size_t> load(static_cast<size_t>(num_ps), 0);
  for (size_t i : order) {
    const size_t ps = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out.shards_[i].ps = static_cast<int>(ps);
    load[ps] += out.shards_[i].count;
  }
  return out;
}

std::string ShardPlacement::describe() const {
  std::vector<size_t> bytes(static_cast<size_t>(num_ps_), 0);
  for (const Shard& s : shards_) bytes[static_cast<size_t>(s.ps)] += s.count * sizeof(float);
  std::string text = std::to_string(shards_.size()) + " shard(s) over " +
                     std::to_string(num_ps_) + " ps:";
  for (size_t p = 0; p < bytes.size(); ++p) {
    text += (p ? ", " : " ") + std::string("ps ") + std::to_string(p) + " " +
            std::to_string(bytes[p]) + " B";
  }
  return text;
}

}  // namespace strata::ps
