// Known data for bench's correctness check (nccl-tests' #wrong column).
//
// Every value a replica sends, and every value a correct result holds, is a
// small non-negative integer chosen so that no intermediate sum or product
// leaves the range where the dtype is exact (255 for u8, 256 for bf16). Then
// any combining order gives bit-identical results and outputs compare byte
// for byte with no tolerance. MEAN inputs are built so every sum is a
// multiple of the replica count, making the division exact too.
//
// Values are periodic in the element index, so a table of one period fills
// and checks buffers at memcpy/memcmp speed.
#ifndef STRATA_TOOLS_STRATA_BENCH_PATTERN_H_
#define STRATA_TOOLS_STRATA_BENCH_PATTERN_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"

namespace strata::cli {

// One period of encoded elements, repeated to cover any range.
class Tiled {
 public:
  Tiled() = default;
  Tiled(DType dtype, const std::vector<double>& period);

  // Writes elements [first, first + count) of the infinite repetition.
  void fill(uint64_t first, uint64_t count, std::byte* dst) const;
  // How many of `count` elements at `got` differ from [first, first + count).
  uint64_t mismatches(uint64_t first, uint64_t count, const std::byte* got) const;
  bool contains_byte(std::byte b) const;

 private:
  size_t elem_ = 1;
  uint64_t period_ = 1;  // elements
  std::vector<std::byte> bytes_;
};

class Pattern {
 public:
  // Fails when the dtype cannot hold exact results for this many replicas
  // (e.g. sums of 300 u8 replicas); bench then reports #wrong as N/A.
  static StatusOr<Pattern> make(CollectiveKind op, DType dtype, ReduceOp redop, int replicas);

  // What replica r sends; element k is its input's k-th element (for
  // reduce_scatter, the index within the whole input).
  const Tiled& input(int replica) const { return inputs_[static_cast<size_t>(replica)]; }
  // The reduction over all replicas of element k (reducing ops only).
  const Tiled& reduced() const { return reduced_; }
  // A byte that, repeated, is never a correct output element: outputs are
  // filled with it so an element the algorithm forgot to write is wrong.
  std::byte sentinel() const { return sentinel_; }

 private:
  std::vector<Tiled> inputs_;
  Tiled reduced_;
  std::byte sentinel_{0xA5};
};

}  // namespace strata::cli

#endif  // STRATA_TOOLS_STRATA_BENCH_PATTERN_H_
