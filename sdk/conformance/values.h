// The inputs each replica contributes, and the host reference they must
// reduce to. Inputs are chosen so that every partial result is exact in
// every dtype: the reference is exact, and a mismatch is a wrong result,
// never rounding noise or a different summation order.
#ifndef STRATA_SDK_CONFORMANCE_VALUES_H_
#define STRATA_SDK_CONFORMANCE_VALUES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/common/dtype.h"
#include "sdk/conformance/dtype_codec.h"

namespace strata::conformance {

struct Expected {
  double value = 0;
  double tolerance = 0;  // nonzero only for MEAN of floating types
};

// The reduction of one element across the team, computed in int64 (integer
// dtypes) or double. MEAN truncates toward zero for integers; for floats it
// allows the error of dividing each contribution before summing.
Expected reduce_reference(DType dtype, ReduceOp op, std::span<const double> column);

class RandomBits;

// Deterministic inputs: column(e) is element e of every replica's input, a
// pure function of (seed, e), so a worker process of a future multi-process
// launcher can compute the whole reference without seeing its peers' data.
class InputGenerator {
 public:
  // `redop` is empty for ops that only move data (broadcast, all_gather);
  // those get values spread over the dtype's whole range to catch lossy
  // conversions. Reducing ops get small values whose every partial result
  // is exact: sums stay within the dtype's integer range, products are
  // powers of two, MEAN sums of floats are divisible by the team size.
  InputGenerator(DType dtype, std::optional<ReduceOp> redop, int world, uint64_t seed);

  void column(uint64_t element, std::span<double> out) const;
  // A value no input or result of a reducing op takes, written into
  // outputs beforehand to catch elements never written.
  double sentinel() const { return dtype_ == DType::kU8 ? 251.0 : 1000.0; }

 private:
  double wide_value(RandomBits& bits) const;
  double prod_factor(RandomBits& bits, int& doublings) const;

  DType dtype_;
  std::optional<ReduceOp> redop_;
  int world_;
  uint64_t seed_;
  double step_;        // values are integer multiples of this
  int64_t max_units_;  // |value| <= max_units_ * step_
};

// Mixes two integers into one seed (test name hash, call number).
uint64_t mix_seed(uint64_t a, uint64_t b);
// FNV-1a: stable across runs, hosts and compilers, unlike std::hash.
uint64_t hash_name(const std::string& name);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_VALUES_H_
