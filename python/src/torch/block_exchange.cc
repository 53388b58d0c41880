#include "python/src/torch/block_exchange.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "strata/sdk/host_copy.h"

namespace strata::python {
namespace {

int64_t sum(std::span<const int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t{0});
}

}  // namespace

Status exchange_blocks(CollectiveOps& ops, const BlockExchange& x, const uint8_t* send,
                       std::span<const int64_t> send_bytes, uint8_t* recv,
                       std::span<const int64_t> recv_bytes) {
  const auto n = static_cast<size_t>(x.size);
  if (send_bytes.size() != n || recv_bytes.size() != n) {
    return InternalError("strata backend: " + x.call + " with " +
                         std::to_string(send_bytes.size()) + " send and " +
                         std::to_string(recv_bytes.size()) + " receive sizes for " +
                         std::to_string(n) + " ranks");
  }
  // 1. Every rank's row: what it sends to each rank, then what it expects
  // from each. All ranks then judge the same table alike.
  std::vector<int64_t> mine(send_bytes.begin(), send_bytes.end());
  mine.insert(mine.end(), recv_bytes.begin(), recv_bytes.end());
  std::vector<int64_t> table(n * 2 * n);
  const Buffer row{mine.data(), DType::kI64, mine.size(), x.device};
  const Buffer rows{table.data(), DType::kI64, table.size(), x.device};
  STRATA_RETURN_IF_ERROR(ops.all_gather({&row, 1}, {&rows, 1}, x.options));
  auto sends = [&](size_t s, size_t r) { return table[s * 2 * n + r]; };
  auto expects = [&](size_t r, size_t s) { return table[r * 2 * n + n + s]; };
  int64_t widest = 0;
  for (size_t s = 0; s < n; ++s) {
    int64_t total = 0;
    for (size_t r = 0; r < n; ++r) {
      if (sends(s, r) != expects(r, s)) {
        return InvalidArgumentError(
            "strata backend: " + x.call + ": " + x.describe_rank(static_cast<int>(s)) +
            " sends " + std::to_string(sends(s, r)) + " bytes to " +
            x.describe_rank(static_cast<int>(r)) + ", which expects " +
            std::to_string(expects(r, s)) + " bytes from it (the split sizes or tensor shapes "
            "differ across ranks)");
      }
      total += sends(s, r);
    }
    widest = std::max(widest, total);
  }
  if (widest == 0) return Status();
  // 2. Every rank's send buffer, padded to the widest, to every rank.
  const int64_t own = sum(send_bytes);
  std::vector<uint8_t> padded;
  const uint8_t* source = send;
  if (own < widest) {
    padded.assign(static_cast<size_t>(widest), 0);
    if (own > 0) sdk::copy_host(padded.data(), send, static_cast<size_t>(own));
    source = padded.data();
  }
  std::vector<uint8_t> gathered(n * static_cast<size_t>(widest));
  const Buffer in{const_cast<uint8_t*>(source), DType::kU8, static_cast<uint64_t>(widest),
                  x.device};
  const Buffer out{gathered.data(), DType::kU8, gathered.size(), x.device};
  STRATA_RETURN_IF_ERROR(ops.all_gather({&in, 1}, {&out, 1}, x.options));
  // 3. From rank s's buffer, the block addressed to this rank.
  const auto me = static_cast<size_t>(x.rank);
  int64_t into = 0;
  for (size_t s = 0; s < n; ++s) {
    int64_t from = static_cast<int64_t>(s) * widest;
    for (size_t r = 0; r < me; ++r) from += sends(s, r);
    if (sends(s, me) > 0) {
      sdk::copy_host(recv + into, gathered.data() + from, static_cast<size_t>(sends(s, me)));
    }
    into += sends(s, me);
  }
  return Status();
}

}  // namespace strata::python
