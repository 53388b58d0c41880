// One collective call checked end to end: fresh guarded buffers on the
// team's devices, inputs whose sums stay exact in f32, a forced algorithm
// (or AUTO), and a byte-for-byte comparison of every buffer — outputs,
// inputs and the guard words around them — with a host reference.
#ifndef STRATA_TESTS_HIERARCHICAL_COPY_COLLECTIVE_CASE_H_
#define STRATA_TESTS_HIERARCHICAL_COPY_COLLECTIVE_CASE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/collective/collective_ops.h"
#include "strata/sdk/device_table.h"

namespace strata::testing {

struct Case {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  DType dtype = DType::kF32;  // f32 or i32
  ReduceOp op = ReduceOp::kSum;
  uint64_t count = 0;  // per replica, in the smaller of input and output
  bool in_place = false;
  int root = 0;   // broadcast and reduce
  int seed = 0;   // changes every value, so a stale result from an earlier call shows

  std::string describe() const;
};

// Runs `c` on `ops`, forcing `algorithm` unless it is empty (AUTO), and
// checks every byte of every replica's memory against the reference: the
// outputs hold the result, and nothing else changed — inputs, the rest of an
// in-place buffer, outputs the op must not write, and guard words.
::testing::AssertionResult run_case(CollectiveOps& ops, const sdk::DeviceTable& table,
                                    const Case& c, const std::string& algorithm);

// The value of element i of replica r's input for `seed`: integers in
// [-30, 30], so sums over 8 replicas are exact in f32 and MEAN divides an
// exact sum.
int64_t input_value(int replica, uint64_t i, int seed);

}  // namespace strata::testing

#endif  // STRATA_TESTS_HIERARCHICAL_COPY_COLLECTIVE_CASE_H_
