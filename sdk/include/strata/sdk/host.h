// The host services of the Runtime that is calling into this plugin.
//
// One library may be registered with several Runtimes of one process, each
// with its own services. Every object registered through sdk::Registrar
// remembers its Runtime's services, and the SDK's trampolines make them the
// current ones (a thread-local) for the duration of each call, so plugin code
// just calls Host::log or DeviceTable::of. Threads a plugin starts itself
// carry them over with HostScope (BlockingOperation does).
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
  // The services current on this thread (see HostScope), else those of the
  // most recent registration, else NULL.
  static const strata_host_services_t* services() noexcept;
  static void set_fallback(const strata_host_services_t* services) noexcept;

  // Logging never fails; with no services it writes to stderr.
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

// Makes `services` current on this thread until the scope ends.
class HostScope {
 public:
  explicit HostScope(const strata_host_services_t* services) noexcept;
  ~HostScope();
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;

 private:
  const strata_host_services_t* previous_;
};

}  // namespace strata::sdk

#endif  // STRATA_SDK_HOST_H_
