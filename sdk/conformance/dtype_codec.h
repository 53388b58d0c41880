// Elements of every dtype as doubles on the host. Every value the suite
// generates is exact in double and in its dtype, so comparing doubles is
// comparing the dtype's values exactly.
#ifndef STRATA_SDK_CONFORMANCE_DTYPE_CODEC_H_
#define STRATA_SDK_CONFORMANCE_DTYPE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/common/dtype.h"

namespace strata::conformance {

bool is_floating(DType dtype);
// The spacing of the dtype's values just above 1 (2^-10 for f16 ...).
double epsilon(DType dtype);

// Whole buffers at once: the element loops the suite spends its time in.
// encode rounds to nearest even for f16/bf16 and wraps integers.
void encode(DType dtype, std::span<const double> values, std::byte* dst);
void decode(DType dtype, const std::byte* src, std::span<double> out);

// Element `index` of a buffer of `dtype`.
double load_value(DType dtype, const std::byte* base, uint64_t index);
void store_value(DType dtype, std::byte* base, uint64_t index, double value);
// `value` as the dtype would hold it.
double round_to(DType dtype, double value);

// "12", "-0.5", "1.5e+07": the shortest text that reads back exactly.
std::string format_value(double value);

}  // namespace strata::conformance

#endif  // STRATA_SDK_CONFORMANCE_DTYPE_CODEC_H_
