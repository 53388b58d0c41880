// The strategies that keep everything on one device: Default (what
// get_strategy() returns outside any scope: no distribution at all) and
// OneDevice (one replica on a chosen device; TF uses it to test code that
// must also run under real distribution).
#ifndef STRATA_CORE_STRATEGY_DEFAULT_STRATEGY_H_
#define STRATA_CORE_STRATEGY_DEFAULT_STRATEGY_H_

#include "core/strategy/strategy.h"

namespace strata {

class DefaultStrategy final : public Strategy {
 public:
  DefaultStrategy();
  std::string_view kind() const override { return "default"; }
};

// The process-wide default strategy.
Strategy& default_strategy();

class OneDeviceStrategy final : public Strategy {
 public:
  OneDeviceStrategy(strata_device_t device, std::chrono::nanoseconds timeout);
  std::string_view kind() const override { return "one_device"; }
};

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_DEFAULT_STRATEGY_H_
