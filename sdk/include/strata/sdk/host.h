// The host services of the plugin this code is linked into.
//
// Each plugin links its own copy of the SDK (a static library with hidden
// symbols), so this state is per plugin. The registration trampoline attaches
// the services before calling the plugin's register function.
#ifndef STRATA_SDK_HOST_H_
#define STRATA_SDK_HOST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "strata/abi/registrar.h"

namespace strata::sdk {

class Host {
 public:
  static void attach(const strata_host_services_t* services) noexcept;
  static void detach() noexcept;
  static const strata_host_services_t* services() noexcept;

  // Logging never fails; before attach() it writes to stderr.
  static void log(strata_log_level_t level, std::string_view message) noexcept;
  static int64_t now_ns() noexcept;
  // Throws sdk::Error(NOT_FOUND) for an unknown id.
  static const strata_device_type_t* device_type(uint32_t type_id);
  static std::optional<std::string> option(std::string_view key);

  // Team-scoped store (strata_team_desc_t.store); throw sdk::Error on failure.
  static void store_set(void* store, std::string_view key,
                        std::string_view value);
  static std::string store_get(void* store, std::string_view key,
                               int64_t deadline_ns);
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_HOST_H_
