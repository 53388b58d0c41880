// Strategy::gather when replicas live in several processes. Replicas may
// hold different numbers of rows (a partial last batch), but an all-gather
// moves equal counts, so the row counts are gathered first, every value is
// padded to the longest, and the padding is dropped when assembling.
#include <algorithm>

#include "core/strategy/strategy.h"

namespace strata {

StatusOr<Tensor> Strategy::gather_across_workers(const PerReplica<Tensor>& value, int axis) {
  if (axis != 0) {
    return InvalidArgumentError("gather across workers supports axis 0 (the batch axis), got " +
                                std::to_string(axis));
  }
  const std::vector<Tensor>& local = value.values();
  const Tensor& first = local.front();
  if (first.rank() == 0) return InvalidArgumentError("gather: scalars have no axis 0");
  const Shape row_shape(first.shape().begin() + 1, first.shape().end());
  int64_t row_size = 1;
  for (int64_t d : row_shape) row_size *= d;
  for (const Tensor& t : local) {
    if (t.rank() != first.rank() || !std::equal(row_shape.begin(), row_shape.end(),
                                                t.shape().begin() + 1)) {
      return InvalidArgumentError("gather: replicas hold " + first.describe() + " and " +
                                  t.describe() + "; only axis 0 may differ");
    }
  }
  const size_t n_local = local.size();
  const auto all = static_cast<uint64_t>(num_replicas_in_sync());
  auto all_gather = [&](const std::vector<Buffer>& in, const std::vector<Buffer>& out) {
    DeviceStaging::Lists lists;
    for (size_t r = 0; r < in.size(); ++r) lists.push_back({in[r], out[r]});
    return on_devices(lists, [&](const DeviceStaging::Lists& staged) {
      std::vector<Buffer> staged_in, staged_out;
      for (const auto& list : staged) {
        staged_in.push_back(list[0]);
        staged_out.push_back(list[1]);
      }
      return collectives()->all_gather(staged_in, staged_out);
    });
  };

  std::vector<float> my_rows(n_local), all_rows(n_local * all);
  std::vector<Buffer> in, out;
  for (size_t r = 0; r < n_local; ++r) {
    my_rows[r] = static_cast<float>(local[r].dim(0));
    in.push_back(Buffer{&my_rows[r], DType::kF32, 1, devices()[r]});
    out.push_back(Buffer{all_rows.data() + r * all, DType::kF32, all, devices()[r]});
  }
  STRATA_RETURN_IF_ERROR(all_gather(in, out));
  int64_t longest = 0, total = 0;
  for (uint64_t g = 0; g < all; ++g) {
    longest = std::max<int64_t>(longest, static_cast<int64_t>(all_rows[g]));
    total += static_cast<int64_t>(all_rows[g]);
  }

  const auto slot = static_cast<uint64_t>(longest * row_size);
  std::vector<std::vector<float>> padded(n_local, std::vector<float>(slot, 0.0f));
  std::vector<std::vector<float>> gathered(n_local, std::vector<float>(slot * all));
  in.clear();
  out.clear();
  for (size_t r = 0; r < n_local; ++r) {
    std::copy(local[r].values().begin(), local[r].values().end(), padded[r].begin());
    in.push_back(Buffer{padded[r].data(), DType::kF32, slot, devices()[r]});
    out.push_back(Buffer{gathered[r].data(), DType::kF32, slot * all, devices()[r]});
  }
  STRATA_RETURN_IF_ERROR(all_gather(in, out));

  Shape shape = first.shape();
  shape[0] = total;
  std::vector<float> joined;
  joined.reserve(static_cast<size_t>(total * row_size));
  for (uint64_t g = 0; g < all; ++g) {
    const auto begin = gathered[0].begin() + static_cast<std::ptrdiff_t>(g * slot);
    joined.insert(joined.end(), begin,
                  begin + static_cast<std::ptrdiff_t>(static_cast<int64_t>(all_rows[g]) * row_size));
  }
  return Tensor(std::move(shape), std::move(joined));
}

}  // namespace strata
