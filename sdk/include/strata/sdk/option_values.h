// Reading a plugin's option values (plugins.options.<plugin>.<key> in the
// config, strings by the time a plugin sees them) the same way in every
// plugin, with errors that name the setting.
#ifndef STRATA_SDK_OPTION_VALUES_H_
#define STRATA_SDK_OPTION_VALUES_H_

#include <string>

namespace strata::sdk {

// "65536", "64KiB", "1MiB", "1.5": a positive number; with `size`, an
// optional binary unit (B, K/KiB, M/MiB, G/GiB) multiplies it. Throws
// sdk::InvalidArgument naming `where` ("plugins.options.mpi.ring_bytes")
// and the accepted forms.
double parse_option_number(const std::string& where, const std::string& text, bool size);

// The alpha-beta(-gamma) cost model a plugin's `estimate` ranks by, read
// from the options alpha_us, wire_gbytes_per_s and reduce_gbytes_per_s of
// the calling plugin (sdk::Host::option); an option not set keeps the value
// passed in. `prefix` names them in errors ("plugins.options.mpi.").
void read_cost_model_options(const std::string& prefix, double* alpha, double* beta,
                             double* gamma);

}  // namespace strata::sdk

#endif  // STRATA_SDK_OPTION_VALUES_H_
