#include "shm_options.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "segment.h"
#include "strata/sdk/error.h"
#include "strata/sdk/host.h"
#include "strata/sdk/option_values.h"

namespace strata::shm {
namespace {

const std::string kPrefix = "plugins.options.shm.";

// The variable wins over the config (like NCCL_BUFFSIZE), for tuning and for
// tests without a config file (the conformance suite has none).
std::optional<std::pair<std::string, std::string>> setting(const char* env, const char* key) {
  const char* forced = std::getenv(env);
  if (forced != nullptr && *forced != '\0') return std::make_pair(std::string(env), std::string(forced));
  if (auto v = sdk::Host::option(key)) return std::make_pair(kPrefix + key, *v);
  return std::nullopt;
}

uint64_t size_in(const std::pair<std::string, std::string>& s, uint64_t low, uint64_t high) {
  const double n = sdk::parse_option_number(s.first, s.second, true);
  if (n < static_cast<double>(low) || n > static_cast<double>(high)) {
    throw sdk::InvalidArgument(s.first + ": '" + s.second + "' is outside " +
                               std::to_string(low) + " .. " + std::to_string(high) + " bytes");
  }
  return static_cast<uint64_t>(n);
}

}  // namespace

ShmOptions ShmOptions::from_host() {
  ShmOptions o;
  if (auto s = setting("STRATA_SHM_CHUNK_BYTES", "chunk_bytes")) {
    o.chunk_bytes = size_in(*s, 64, 1ull << 30);
  }
  if (auto s = setting("STRATA_SHM_DIRECT_BYTES", "direct_bytes")) {
    o.direct_bytes = s->second == "0" ? 0 : size_in(*s, 1, 1ull << 30);
  }
  if (auto s = setting("STRATA_SHM_SLOTS", "slots")) {
    const double n = sdk::parse_option_number(s->first, s->second, false);
    if (n < 2 || n > kMaxSlots || n != static_cast<double>(static_cast<uint32_t>(n))) {
      throw sdk::InvalidArgument(s->first + ": '" + s->second +
                                 "' is not a whole number from 2 to 64");
    }
    o.slots = static_cast<uint32_t>(n);
  }
  if (auto s = setting("STRATA_SHM_SPIN_US", "spin_us"); s && s->second != "auto") {
    // parse_option_number takes positive numbers only; 0 (never spin) is valid.
    const double n = s->second == "0" ? 0 : sdk::parse_option_number(s->first, s->second, false);
    if (n > 100000 || n != static_cast<double>(static_cast<int32_t>(n))) {
      throw sdk::InvalidArgument(s->first + ": '" + s->second +
                                 "' is neither 'auto' nor a whole number of microseconds "
                                 "from 0 to 100000");
    }
    o.spin_us = static_cast<int32_t>(n);
  }
  if (auto s = setting("STRATA_SHM_STAGING", "staging")) {
    if (s->second == "auto") {
      o.staging = Staging::kAuto;
    } else if (s->second == "cached") {
      o.staging = Staging::kCached;
    } else if (s->second == "streaming") {
      o.staging = Staging::kStreaming;
    } else {
      throw sdk::InvalidArgument(s->first + ": '" + s->second +
                                 "' is not one of auto, cached, streaming");
    }
  }
  sdk::read_cost_model_options(kPrefix, &o.alpha, &o.beta, &o.gamma);
  return o;
}

}  // namespace strata::shm
