// A plugin only the CLI tests load (from their own directory, through
// STRATA_PLUGIN_PATH), so `strata explain` and `strata bench` meet behaviour
// the in-tree plugins never show on virtual CPU devices:
//   cli_test/all_reduce/picky   correct, cheapest estimate, declines > 64 KiB
//   cli_test/all_reduce/broken  wrong in one element per replica, no estimate
//   device type cli_staged      memory the host must not touch (bench stages)
// Both algorithms work on the host, so they decline devices it cannot read.
#include <cstring>
#include <vector>

#include "staged_device_type.h"
#include "strata/sdk/host_kernels.h"
#include "strata/sdk/plugin.h"

namespace sdk = strata::sdk;

namespace {

constexpr uint64_t kPickyLimit = 64 * 1024;

std::optional<std::string> needs_host_memory(const strata_call_desc_t& call) {
  const auto devices = sdk::DeviceTable::of(call.device_type);
  for (uint32_t i = 0; i < call.team->local_count; ++i) {
    if (!devices.props(call.team->local_devices[i].index).host_accessible) {
      return "cli_test needs host-accessible memory";
    }
  }
  return std::nullopt;
}

// Host-side all-reduce: every device type the tests use is host-accessible.
void host_all_reduce(const strata_call_t& call) {
  const uint32_t n = call.desc->team->local_count;
  std::vector<const void*> inputs;
  for (uint32_t i = 0; i < n; ++i) inputs.push_back(call.inputs[i].data);
  std::vector<std::byte> result(call.desc->count * sdk::dtype_size(call.desc->dtype));
  if (!sdk::reduce_host(call.desc->dtype, call.desc->redop, result.data(), inputs.data(), n,
                        call.desc->count, n)) {
    throw sdk::NotSupported("dtype or operator unknown to reduce_host");
  }
  for (uint32_t i = 0; i < n; ++i) std::memcpy(call.outputs[i].data, result.data(), result.size());
}

class Picky final : public sdk::Algorithm {
 public:
  Picky()
      : Algorithm("picky", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL,
                  "test plugin: host all-reduce that declines calls over 64 KiB") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    if (call.count * sdk::dtype_size(call.dtype) > kPickyLimit) {
      return "cli_test declines calls over 64 KiB";
    }
    return needs_host_memory(call);
  }
  std::optional<double> estimate(const strata_call_desc_t&) const override { return 0.0; }
  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t& call) override {
    return std::make_unique<sdk::ImmediateOperation>([call] { host_all_reduce(call); });
  }
};

class Broken final : public sdk::Algorithm {
 public:
  Broken()
      : Algorithm("broken", STRATA_ALL_REDUCE, STRATA_SCOPE_LOCAL,
                  "test plugin: all-reduce that gets the last element wrong on every replica") {}

  std::optional<std::string> decline(const strata_call_desc_t& call) const override {
    return needs_host_memory(call);
  }

  std::unique_ptr<sdk::Operation> create(sdk::TeamState*, const strata_call_t& call) override {
    return std::make_unique<sdk::ImmediateOperation>([call] {
      host_all_reduce(call);
      const size_t elem = sdk::dtype_size(call.desc->dtype);
      if (call.desc->count == 0) return;
      for (uint32_t i = 0; i < call.desc->team->local_count; ++i) {
        auto* last =
            static_cast<unsigned char*>(call.outputs[i].data) + (call.desc->count - 1) * elem;
        last[elem - 1] ^= 0x40;  // a bit in the sign/exponent byte: never equal
      }
    });
  }
};

void register_cli_test(sdk::Registrar& r) {
  r.add_device_type(std::make_unique<strata::cli_test::StagedDeviceType>());
  r.add<Picky>();
  r.add<Broken>();
}

}  // namespace

STRATA_PLUGIN("cli_test", "0.0.1", "CLI test plugin: a picky and a broken all-reduce",
              register_cli_test)
