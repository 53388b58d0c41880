#include "core/cluster/store_counter.h"

#include <charconv>
#include <string>

namespace strata {

StatusOr<int64_t> add_to_counter(std::string_view key, std::string_view current, int64_t delta) {
  // Long non-numbers are cut in messages: a store value may be megabytes.
  const std::string shown(current.substr(0, 64));
  int64_t number = 0;
  if (!current.empty()) {
    const auto [end, ec] = std::from_chars(current.data(), current.data() + current.size(), number);
    if (ec != std::errc() || end != current.data() + current.size()) {
      return InvalidArgumentError("key '" + std::string(key) + "' holds '" + shown +
                                  "', which is not an integer");
    }
  }
  int64_t sum = 0;
  if (__builtin_add_overflow(number, delta, &sum)) {
    return InvalidArgumentError("adding " + std::to_string(delta) + " to key '" +
                                std::string(key) + "' (" + shown + ") would overflow");
  }
  return sum;
}

}  // namespace strata
