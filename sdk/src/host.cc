#include "strata/sdk/host.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "strata/sdk/error.h"

namespace strata::sdk {
namespace {

std::atomic<const strata_host_services_t*> g_fallback{nullptr};
// This file is linked into every plugin, which core dlopens, so the
// variable lives in dynamic TLS reached through __tls_get_addr. GCC 12's
// ThreadSanitizer intercepts that call and, for some threads' TLS blocks,
// aborts with "failed to allocate 0x1ece000001000 bytes" (seen with 2
// processes x 3 replicas in tests/multi_process). Under TSan only, the
// initial-exec model (8 bytes of glibc's static TLS surplus per plugin)
// keeps the call away; other builds keep the general model, which never
// limits how many plugins a process can load.
#if defined(__SANITIZE_THREAD__)
#define STRATA_SDK_TLS_MODEL [[gnu::tls_model("initial-exec")]]
#else
#define STRATA_SDK_TLS_MODEL
#endif
STRATA_SDK_TLS_MODEL thread_local const strata_host_services_t* t_current = nullptr;

const strata_host_services_t& attached() {
  const auto* s = Host::services();
  if (s == nullptr) {
    throw Error(STRATA_FAILED_PRECONDITION,
                "host services used outside a call from core (start your threads with "
                "sdk::HostScope)");
  }
  return *s;
}

}  // namespace

const strata_host_services_t* Host::services() noexcept {
  return t_current != nullptr ? t_current : g_fallback.load(std::memory_order_acquire);
}

void Host::set_fallback(const strata_host_services_t* services) noexcept {
  g_fallback.store(services, std::memory_order_release);
}

HostScope::HostScope(const strata_host_services_t* services) noexcept : previous_(t_current) {
  if (services != nullptr) t_current = services;
}

HostScope::~HostScope() { t_current = previous_; }

void Host::log(strata_log_level_t level, std::string_view message) noexcept {
  const auto* s = services();
  std::string text(message);
  if (s != nullptr && s->log != nullptr) {
    s->log(s->host, level, text.c_str());
  } else {
    std::fprintf(stderr, "strata plugin: %s\n", text.c_str());
  }
}

int64_t Host::now_ns() noexcept {
  const auto* s = services();
  if (s != nullptr && s->now_ns != nullptr) return s->now_ns(s->host);
  return 0;
}

const strata_device_type_t* Host::device_type(uint32_t type_id) {
  const auto& s = attached();
  const strata_device_type_t* t = s.device_type(s.host, type_id);
  if (t == nullptr) {
    throw Error(STRATA_NOT_FOUND,
                "no device type with id " + std::to_string(type_id));
  }
  return t;
}

std::optional<std::string> Host::option(std::string_view key) {
  const auto& s = attached();
  const char* value = s.option(s.host, std::string(key).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

void Host::store_set(void* store, std::string_view key, std::string_view value) {
  const auto& s = attached();
  char msg[512] = {0};
  check(s.store_set(store, std::string(key).c_str(), value.data(), value.size(),
                    {msg, sizeof msg}),
        "store set '" + std::string(key) + "'", msg);
}

std::string Host::store_get(void* store, std::string_view key,
                            int64_t deadline_ns) {
  const auto& s = attached();
  const std::string k(key);
  std::string value(256, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    char msg[512] = {0};
    uint64_t length = 0;
    const strata_status_t st = s.store_get(store, k.c_str(), value.data(),
                                           value.size(), &length, deadline_ns,
                                           {msg, sizeof msg});
    if (st == STRATA_INVALID_ARGUMENT && length > value.size()) {
      value.resize(length);  // value larger than our buffer: retry once
      continue;
    }
    check(st, "store get '" + k + "'", msg);
    value.resize(length);
    return value;
  }
  throw Error(STRATA_INTERNAL, "store value for '" + k + "' kept growing");
}

}  // namespace strata::sdk
