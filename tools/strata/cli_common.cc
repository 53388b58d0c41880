#include "tools/strata/cli_common.h"

#include <iostream>
#include <utility>

#include "core/common/units.h"
#include "core/config/config_choice.h"

namespace strata::cli {

int report_error(std::string_view command, const Status& status) {
  std::cerr << "strata " << command << ": " << status.to_string() << "\n";
  return kExitFailure;
}

StatusOr<Config> load_cli_config(const std::string& config_file, int min_cpu_devices) {
  Config built_in;
  built_in.source = "<defaults>";
  if (built_in.devices.cpu_count < min_cpu_devices) built_in.devices.cpu_count = min_cpu_devices;
  return load_chosen_config(choose_config(config_file), std::move(built_in));
}

StatusOr<std::shared_ptr<Runtime>> open_runtime(const std::string& config_file,
                                                int min_cpu_devices, RuntimeOptions options) {
  STRATA_ASSIGN_OR_RETURN(Config config, load_cli_config(config_file, min_cpu_devices));
  return Runtime::create(std::move(config), std::move(options));
}

StatusOr<std::unique_ptr<CollectiveOps>> open_team(const std::shared_ptr<Runtime>& runtime,
                                                   const std::string& device_type, int count) {
  if (runtime->registry().find_device_type(device_type) == nullptr) {
    std::string known;
    for (const auto* type : runtime->registry().device_types()) {
      known += (known.empty() ? "" : ", ") + type->name;
    }
    return NotFoundError("unknown device type '" + device_type + "'; registered types: " + known +
                         " (`strata info` lists them with their devices)");
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<strata_device_t> devices,
                          runtime->devices(device_type, count));
  TeamSpec spec;
  spec.local_devices = std::move(devices);
  return CollectiveOps::create(runtime, std::move(spec));
}

StatusOr<uint64_t> count_for_bytes(CollectiveKind op, uint64_t bytes, DType dtype, int replicas,
                                   bool exact) {
  const uint64_t elem = dtype_size(dtype);
  const std::string what =
      format_size(bytes) + (bytes >= 1024 ? " (" + std::to_string(bytes) + " B)" : "");
  if (exact && bytes % elem != 0) {
    return InvalidArgumentError(what + " is not a whole number of " +
                                std::string(dtype_name(dtype)) + " elements (" +
                                std::to_string(elem) + " B each)");
  }
  const uint64_t elements = bytes / elem;
  if (op != CollectiveKind::kAllGather && op != CollectiveKind::kReduceScatter) return elements;
  // The size names the whole gathered buffer: each replica owns 1/n of it.
  const auto n = static_cast<uint64_t>(replicas);
  if (exact && elements % n != 0) {
    return InvalidArgumentError(std::string(collective_name(op)) + " size " + what +
                                " is the whole gathered buffer and must split evenly into " +
                                std::to_string(n) + " replica slices of " +
                                std::string(dtype_name(dtype)) + " elements");
  }
  return elements / n;
}

uint64_t bytes_for_count(CollectiveKind op, uint64_t count, DType dtype, int replicas) {
  const uint64_t bytes = count * dtype_size(dtype);
  if (op == CollectiveKind::kAllGather || op == CollectiveKind::kReduceScatter) {
    return bytes * static_cast<uint64_t>(replicas);
  }
  return bytes;
}

std::string collective_names() {
  std::string out;
  for (CollectiveKind kind : kAllCollectives) {
    out += (out.empty() ? "" : ", ") + std::string(collective_name(kind));
  }
  return out;
}

std::string describe_devices(const Runtime& runtime, const Team& team) {
  const auto& devices = team.devices();
  if (devices.size() == 1) return runtime.device_name(devices.front());
  return runtime.device_name(devices.front()) + " .. " + runtime.device_name(devices.back());
}

}  // namespace strata::cli
