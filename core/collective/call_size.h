// How a call described in bytes (the CLI's SIZE, config rules, nccl-tests'
// sizes, Python's strata.explain) maps to the element count the collectives
// take, and back.
#ifndef STRATA_CORE_COLLECTIVE_CALL_SIZE_H_
#define STRATA_CORE_COLLECTIVE_CALL_SIZE_H_

#include <cstdint>
#include <string>

#include "core/common/dtype.h"
#include "core/common/status.h"

namespace strata {

// Elements per replica (the ABI's `count`) for a call described by `bytes`.
// As in config rules and nccl-tests, `bytes` is the per-replica buffer for
// all_reduce, broadcast and reduce, and the whole gathered buffer for
// all_gather and reduce_scatter. `exact` refuses sizes that do not divide
// evenly (explain); otherwise the count rounds down (bench sweeps).
StatusOr<uint64_t> count_for_bytes(CollectiveKind op, uint64_t bytes, DType dtype, int replicas,
                                   bool exact);
// The inverse: the size nccl-tests prints for a call of `count` elements.
uint64_t bytes_for_count(CollectiveKind op, uint64_t count, DType dtype, int replicas);
// What `strata explain` and strata.explain() say the call is: "all_reduce of
// 1 MiB per replica (262144 x f32), redop sum, out of place"; "barrier".
std::string describe_call(CollectiveKind op, uint64_t bytes, uint64_t count, DType dtype,
                          ReduceOp redop, int root, bool in_place);

}  // namespace strata

#endif  // STRATA_CORE_COLLECTIVE_CALL_SIZE_H_
