// nccl: the `cuda` device type and NCCL collectives for GPUs in one process
// and across processes (docs/GPU.md). On a machine without a GPU or driver
// the plugin loads, says why in one log line, and registers nothing, so
// selection never sees an algorithm that could only fail.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "algorithms.h"
#include "cuda_device_type.h"
#include "cuda_error.h"
#include "nccl_types.h"
#include "strata/sdk/option_values.h"
#include "strata/sdk/plugin.h"

namespace {

using namespace strata;

std::string version_text(int code) {
  // NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z since 2.9.
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

void register_nccl(sdk::Registrar& r) {
  int count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&count);
  if (probe != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string why =
        probe != cudaSuccess
            ? "cudaGetDeviceCount: " + nccl::cuda_error_text(probe)
            : std::string("cudaGetDeviceCount found 0") +
                  (visible != nullptr ? std::string(", CUDA_VISIBLE_DEVICES=") + visible : "");
    sdk::Host::log(STRATA_LOG_INFO, "no CUDA device (" + why + "); registering nothing");
    return;
  }
  auto context = std::make_shared<nccl::NcclContext>();
  context->devices = std::make_shared<nccl::CudaDevices>(nccl::CudaTopology::probe(count));
  context->nccl_version = nccl::nccl_runtime_version();
  // Read once, so every rank with the same config prices calls alike.
  sdk::read_cost_model_options("plugins.options.nccl.", &context->alpha, &context->beta,
                               &context->gamma);
  context->cuda_type_id =
      r.add_device_type(std::make_unique<nccl::CudaDeviceType>(context->devices));
  r.add_algorithm(nccl::make_all_reduce_nccl(context));
  r.add_algorithm(nccl::make_broadcast_nccl(context));
  r.add_algorithm(nccl::make_all_gather_nccl(context));
  r.add_algorithm(nccl::make_reduce_scatter_nccl(context));
  r.add_algorithm(nccl::make_reduce_nccl(context));
  sdk::Host::log(STRATA_LOG_INFO, std::to_string(count) + " CUDA device(s), NCCL " +
                                      version_text(context->nccl_version) + ": " +
                                      context->devices->topology().describe());
}

}  // namespace

STRATA_PLUGIN("nccl", "0.1.0",
              "the cuda device type, and NCCL collectives for GPUs in one or many processes",
              register_nccl)
