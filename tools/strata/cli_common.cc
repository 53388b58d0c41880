#include "tools/strata/cli_common.h"

#include <iostream>
#include <utility>

#include "core/config/config_choice.h"
#include "core/runtime/runtime_report.h"

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

std::string collective_names() {
  std::string out;
  for (CollectiveKind kind : kAllCollectives) {
    out += (out.empty() ? "" : ", ") + std::string(collective_name(kind));
  }
  return out;
}

std::string describe_devices(const Runtime& runtime, const Team& team) {
  return strata::describe_devices(runtime, team.devices());
}

}  // namespace strata::cli
