#include "strata/sdk/types.h"

namespace strata::sdk {

const char* dtype_name(strata_dtype_t dtype) {
  switch (dtype) {
    case STRATA_F32: return "f32";
    case STRATA_F64: return "f64";
    case STRATA_F16: return "f16";
    case STRATA_BF16: return "bf16";
    case STRATA_I32: return "i32";
    case STRATA_I64: return "i64";
    case STRATA_U8: return "u8";
    default: return "unknown-dtype";
  }
}

const char* redop_name(strata_redop_t op) {
  switch (op) {
    case STRATA_SUM: return "sum";
    case STRATA_PROD: return "prod";
    case STRATA_MIN: return "min";
    case STRATA_MAX: return "max";
    case STRATA_MEAN: return "mean";
    default: return "unknown-redop";
  }
}

const char* op_name(strata_op_t op) {
  switch (op) {
    case STRATA_ALL_REDUCE: return "all_reduce";
    case STRATA_BROADCAST: return "broadcast";
    case STRATA_ALL_GATHER: return "all_gather";
    case STRATA_REDUCE_SCATTER: return "reduce_scatter";
    case STRATA_REDUCE: return "reduce";
    case STRATA_BARRIER: return "barrier";
    default: return "unknown-op";
  }
}

}  // namespace strata::sdk
