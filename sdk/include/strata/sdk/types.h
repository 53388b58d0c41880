// Small helpers over the ABI's plain types: sizes and names.
#ifndef STRATA_SDK_TYPES_H_
#define STRATA_SDK_TYPES_H_

#include <cstddef>
#include <cstdint>

#include "strata/abi/types.h"

namespace strata::sdk {

// Bytes per element; 0 for an unknown dtype.
constexpr size_t dtype_size(strata_dtype_t dtype) {
  switch (dtype) {
    case STRATA_F32: return 4;
    case STRATA_F64: return 8;
    case STRATA_F16: return 2;
    case STRATA_BF16: return 2;
    case STRATA_I32: return 4;
    case STRATA_I64: return 8;
    case STRATA_U8: return 1;
    default: return 0;
  }
}

const char* dtype_name(strata_dtype_t dtype);   // "f32", or "unknown-dtype"
const char* redop_name(strata_redop_t op);      // "sum"
const char* op_name(strata_op_t op);            // "all_reduce"

}  // namespace strata::sdk

#endif  // STRATA_SDK_TYPES_H_
