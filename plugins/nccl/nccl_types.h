// Strata's element types, operators and errors in NCCL's terms.
//
// Every Strata dtype has an NCCL twin (bf16 since NCCL 2.10). SUM, PROD,
// MIN and MAX map onto NCCL's operators. MEAN runs as ncclSum followed by
// the plugin's own divide kernel, not ncclAvg: for floats NCCL's average
// multiplies every input by 1/n before summing, which rounds differently
// from Strata's definition (the sum divided by n) — visibly so in f16 — and
// the result must match every other plugin's.
#ifndef STRATA_PLUGINS_NCCL_NCCL_TYPES_H_
#define STRATA_PLUGINS_NCCL_NCCL_TYPES_H_

#include <nccl.h>

#include <optional>
#include <string>
#include <string_view>

#include "strata/abi/status.h"
#include "strata/abi/types.h"

namespace strata::nccl {

// NCCL_VERSION_CODE of the library loaded at run time (ncclGetVersion),
// which may be older than the header this plugin was built with.
int nccl_runtime_version();

// Why this plugin declines to carry `dtype` (and, for reducing ops, reduce
// it with `redop`), or nullopt when NCCL can.
std::optional<std::string> unsupported(strata_dtype_t dtype, std::optional<strata_redop_t> redop,
                                       int runtime_version);

ncclDataType_t nccl_dtype(strata_dtype_t dtype);
// MEAN gives ncclSum; the caller divides afterwards.
ncclRedOp_t nccl_op(strata_redop_t redop);

// "ncclRemoteError: remote process exited or there was a network error
// (NCCL: <ncclGetLastError>)"; `comm` may be NULL.
std::string nccl_error_text(ncclResult_t result, ncclComm_t comm);
// PEER_FAILED for a remote error, INVALID_ARGUMENT for bad arguments or
// usage, UNAVAILABLE for system (network, socket) errors, INTERNAL else.
strata_status_t nccl_status(ncclResult_t result);

// Throws sdk::Error "<what>: <nccl_error_text>" unless `result` is
// ncclSuccess or (with allow_in_progress) ncclInProgress.
void check_nccl(ncclResult_t result, std::string_view what, ncclComm_t comm,
                bool allow_in_progress = false);

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_NCCL_TYPES_H_
