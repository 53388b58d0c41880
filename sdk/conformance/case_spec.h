// One cell of the conformance matrix — an algorithm, a team size, a call
// shape — and the buffer layout every replica gets for it.
#ifndef STRATA_SDK_CONFORMANCE_CASE_SPEC_H_
#define STRATA_SDK_CONFORMANCE_CASE_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/common/dtype.h"

namespace strata::conformance {

struct CaseSpec {
  std::string algorithm;  // "hierarchical_copy/all_reduce/ring"
  CollectiveKind op = CollectiveKind::kAllReduce;
  int world = 1;
  uint64_t count = 0;
  DType dtype = DType::kF32;
  std::optional<ReduceOp> redop;  // set for reducing ops only
  bool in_place = false;

  // "n4_c1023_f32_sum_inplace"; barrier: "n4". GoogleTest's test name, with
  // the algorithm id as the suite name.
  std::string test_name() const;
  // "hierarchical_copy/all_reduce/ring.n4_c1023_f32_sum_inplace"
  std::string full_name() const { return algorithm + "." + test_name(); }
  // "n=4 count=1023 f32 sum in place": for failure messages.
  std::string describe() const;
};

bool is_reducing(CollectiveKind op);  // all_reduce, reduce_scatter, reduce
bool is_rooted(CollectiveKind op);    // broadcast, reduce

// Elements of one replica's buffers. Out of place, input and output are two
// allocations. In place they share one allocation of `shared` elements with
// the input at `in_offset` and the output at `out_offset`, the layouts of
// strata/abi/algorithm.h (all_gather: the input is the replica's slot of the
// output; reduce_scatter: the output is the replica's slot of the input).
struct Layout {
  uint64_t in_count = 0;
  uint64_t out_count = 0;
  uint64_t shared = 0;
  uint64_t in_offset = 0;
  uint64_t out_offset = 0;
};

Layout layout_for(const CaseSpec& spec, int replica);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_CASE_SPEC_H_
