// The smallest useful Strata plugin: an all-reduce that sums on the calling
// thread. It declines devices whose memory the host cannot read, so the
// selector moves on to another algorithm there.
#include <cstring>
#include <vector>

#include "strata/sdk/host_kernels.h"
#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

class HostSumAllReduce final : public sdk::Algorithm {
 public:
  HostSumAllReduce()
      : Algorithm("host_sum", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL,
                  "reduces on the calling thread; host-readable memory only") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    const auto devices = sdk::DeviceTable::of(call.device_type);
    for (uint32_t i = 0; i < call.team->local_count; ++i) {
      if (!devices.props(call.team->local_devices[i].index).host_accessible) {
        return "device memory is not host-accessible";
      }
    }
    return std::nullopt;
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*,
                                         const strata_call_t& call) override {
    return std::make_unique<sdk::ImmediateOperation>([call] {
      const uint32_t n = call.desc->team->local_count;
      std::vector<const void*> inputs;
      for (uint32_t i = 0; i < n; ++i) inputs.push_back(call.inputs[i].data);
      // Reduce into the first output, then copy it to the others.
      if (!sdk::reduce_host(call.desc->dtype, call.desc->redop, call.outputs[0].data,
                            inputs.data(), n, call.desc->count, n)) {
        throw sdk::NotSupported("dtype or operator unknown to this plugin");
      }
      const size_t bytes = call.desc->count * sdk::dtype_size(call.desc->dtype);
      // Empty buffers may be NULL (strata/abi/types.h): never hand those to memcpy.
      for (uint32_t i = 1; i < n && bytes > 0; ++i) {
        std::memcpy(call.outputs[i].data, call.outputs[0].data, bytes);
      }
    });
  }
};

void register_example(sdk::Registrar& registrar) { registrar.add<HostSumAllReduce>(); }

STRATA_PLUGIN("example", "1.0.0", "minimal example: host-side all-reduce", register_example)
