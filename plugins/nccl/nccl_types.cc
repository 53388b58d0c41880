#include "nccl_types.h"

#include "strata/sdk/error.h"
#include "strata/sdk/types.h"

namespace strata::nccl {
namespace {

constexpr int kBfloat16Version = 21000;  // NCCL 2.10 added ncclBfloat16

}  // namespace

int nccl_runtime_version() {
  int version = 0;
  if (ncclGetVersion(&version) != ncclSuccess) return 0;
  return version;
}

std::optional<std::string> unsupported(strata_dtype_t dtype, std::optional<strata_redop_t> redop,
                                       int runtime_version) {
  if (dtype < 0 || dtype >= STRATA_DTYPE_COUNT) {
    return "dtype " + std::to_string(dtype) +
           " is unknown to this build of the nccl plugin (a newer ABI's type?)";
  }
  if (redop && (*redop < 0 || *redop >= STRATA_REDOP_COUNT)) {
    return "reduction operator " + std::to_string(*redop) +
           " is unknown to this build of the nccl plugin (a newer ABI's operator?)";
  }
  if (dtype == STRATA_BF16 && runtime_version < kBfloat16Version) {
    return "bf16 needs NCCL 2.10 or newer; the loaded libnccl is version " +
           std::to_string(runtime_version);
  }
  return std::nullopt;
}

ncclDataType_t nccl_dtype(strata_dtype_t dtype) {
  switch (dtype) {
    case STRATA_F32: return ncclFloat32;
    case STRATA_F64: return ncclFloat64;
    case STRATA_F16: return ncclFloat16;
    case STRATA_BF16: return ncclBfloat16;
    case STRATA_I32: return ncclInt32;
    case STRATA_I64: return ncclInt64;
    case STRATA_U8: return ncclUint8;
    default:
      throw sdk::NotSupported("dtype " + std::to_string(dtype) + " has no NCCL equivalent");
  }
}

ncclRedOp_t nccl_op(strata_redop_t redop) {
  switch (redop) {
    case STRATA_SUM:
    case STRATA_MEAN: return ncclSum;
    case STRATA_PROD: return ncclProd;
    case STRATA_MIN: return ncclMin;
    case STRATA_MAX: return ncclMax;
    default:
      throw sdk::NotSupported("reduction operator " + std::to_string(redop) +
                              " has no NCCL equivalent");
  }
}

std::string nccl_error_text(ncclResult_t result, ncclComm_t comm) {
  std::string text = ncclGetErrorString(result);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && *last != '\0') text += std::string(" (NCCL: ") + last + ")";
  return text;
}

strata_status_t nccl_status(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return STRATA_OK;
    case ncclRemoteError: return STRATA_PEER_FAILED;
    case ncclInvalidArgument:
    case ncclInvalidUsage: return STRATA_INVALID_ARGUMENT;
    case ncclSystemError: return STRATA_UNAVAILABLE;
    default: return STRATA_INTERNAL;
  }
}

void check_nccl(ncclResult_t result, std::string_view what, ncclComm_t comm,
                bool allow_in_progress) {
  if (result == ncclSuccess || (allow_in_progress && result == ncclInProgress)) return;
  throw sdk::Error(nccl_status(result), std::string(what) + ": " + nccl_error_text(result, comm));
}

}  // namespace strata::nccl
