// all_to_all from the plugin ABI's collectives. ABI 1.1 has no all-to-all
// and no point-to-point operations, so each rank's blocks reach the others
// through two all_gathers: first every rank's table of block sizes (so all
// ranks agree on the padding and on whether the sizes fit together), then
// every rank's send buffer padded to the largest. This moves n times the
// data a real all-to-all moves: correct for any split sizes, not fast
// (docs/PYTORCH.md).
#ifndef STRATA_PYTHON_SRC_TORCH_BLOCK_EXCHANGE_H_
#define STRATA_PYTHON_SRC_TORCH_BLOCK_EXCHANGE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "core/collective/collective_ops.h"

namespace strata::python {

struct BlockExchange {
  int rank = 0;
  int size = 1;
  strata_device_t device{0, 0};
  std::string call;                               // "all_to_all_single", for messages
  std::function<std::string(int)> describe_rank;  // "rank 1 (global rank 3)"
  CallOptions options;
};

// Rank `x.rank` sends send_bytes[r] bytes to rank r, the blocks lying one
// after another in `send`, and receives recv_bytes[s] bytes from rank s
// into `recv`, the same way. When the sizes do not fit together (rank s
// sends a block of another size than rank r expects), every rank returns
// the same INVALID_ARGUMENT naming both ranks and both sizes.
Status exchange_blocks(CollectiveOps& ops, const BlockExchange& x, const uint8_t* send,
                       std::span<const int64_t> send_bytes, uint8_t* recv,
                       std::span<const int64_t> recv_bytes);

}  // namespace strata::python

#endif  // STRATA_PYTHON_SRC_TORCH_BLOCK_EXCHANGE_H_
