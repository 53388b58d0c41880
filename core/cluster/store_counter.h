// The arithmetic behind every store type's add(): a missing or empty value
// counts as 0, any other value must be a whole integer (parsed strictly:
// std::stoll would read "12abc" as 12), and overflow is an error, not a wrap.
#ifndef STRATA_CORE_CLUSTER_STORE_COUNTER_H_
#define STRATA_CORE_CLUSTER_STORE_COUNTER_H_

#include <cstdint>
#include <string_view>

#include "core/common/status.h"

namespace strata {

// `current` is the key's stored text; INVALID_ARGUMENT names the key.
StatusOr<int64_t> add_to_counter(std::string_view key, std::string_view current, int64_t delta);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_STORE_COUNTER_H_
