#include "core/strategy/default_strategy.h"

namespace strata {

DefaultStrategy::DefaultStrategy()
    : Strategy({strata_device_t{0, 0}}, nullptr, std::chrono::seconds(300)) {}

Strategy& default_strategy() {
  static DefaultStrategy strategy;
  return strategy;
}

OneDeviceStrategy::OneDeviceStrategy(strata_device_t device, std::chrono::nanoseconds timeout)
    : Strategy({device}, nullptr, timeout) {}

}  // namespace strata
