// The plugin's algorithms: one file each, ids nccl/<op>/native.
#ifndef STRATA_PLUGINS_NCCL_ALGORITHMS_H_
#define STRATA_PLUGINS_NCCL_ALGORITHMS_H_

#include <memory>

#include "nccl_algorithm.h"
#include "strata/sdk/algorithm.h"

namespace strata::nccl {

std::unique_ptr<sdk::Algorithm> make_all_reduce_nccl(std::shared_ptr<NcclContext> context);
std::unique_ptr<sdk::Algorithm> make_broadcast_nccl(std::shared_ptr<NcclContext> context);
std::unique_ptr<sdk::Algorithm> make_all_gather_nccl(std::shared_ptr<NcclContext> context);
std::unique_ptr<sdk::Algorithm> make_reduce_scatter_nccl(std::shared_ptr<NcclContext> context);
std::unique_ptr<sdk::Algorithm> make_reduce_nccl(std::shared_ptr<NcclContext> context);

}  // namespace strata::nccl

#endif  // STRATA_PLUGINS_NCCL_ALGORITHMS_H_
