// The parameter_server keys of the `strategy:` section. Kept apart from
// config.cc because they only make sense with kind parameter_server: any of
// them under another kind is an error naming the key, never ignored.
#ifndef STRATA_CORE_CONFIG_PARAMETER_SERVER_CONFIG_H_
#define STRATA_CORE_CONFIG_PARAMETER_SERVER_CONFIG_H_

#include <string>
#include <string_view>

#include "core/common/status.h"
#include "core/config/config.h"

namespace strata {

class YamlReader;

// The scheme names, in docs order, for messages.
inline constexpr std::string_view kParameterServerSchemes =
    "hogwild, downpour, agn, sagn, sync, dynamic_sgd, aeasgd, aeamsgd";

bool is_parameter_server_scheme(std::string_view name);

// Reads scheme, learning_rate, ... from the strategy map `r` (whose keys
// were already checked) into *out.
Status parse_parameter_server_keys(const YamlReader& r, std::string_view kind,
                                   ParameterServerConfig* out);

}  // namespace strata

#endif  // STRATA_CORE_CONFIG_PARAMETER_SERVER_CONFIG_H_
