#include "strata/sdk/option_values.h"

#include <cstdlib>

#include "strata/sdk/error.h"
#include "strata/sdk/host.h"

namespace strata::sdk {

double parse_option_number(const std::string& where, const std::string& text, bool size) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  const std::string unit(end == nullptr ? "" : end);
  const double k = 1024.0;
  if (size && (unit == "KiB" || unit == "K")) value *= k;
  else if (size && (unit == "MiB" || unit == "M")) value *= k * k;
  else if (size && (unit == "GiB" || unit == "G")) value *= k * k * k;
  else if (!unit.empty() && !(size && unit == "B")) end = nullptr;
  if (end == nullptr || end == text.c_str() || !(value > 0)) {
    throw InvalidArgument(where + ": '" + text + "' is not a " +
                          (size ? "positive size (65536, 64KiB, 1MiB)" : "positive number"));
  }
  return value;
}

void read_cost_model_options(const std::string& prefix, double* alpha, double* beta,
                             double* gamma) {
  if (auto v = Host::option("alpha_us")) {
    *alpha = parse_option_number(prefix + "alpha_us", *v, false) * 1e-6;
  }
  if (auto v = Host::option("wire_gbytes_per_s")) {
    *beta = 1.0 / (parse_option_number(prefix + "wire_gbytes_per_s", *v, false) * 1e9);
  }
  if (auto v = Host::option("reduce_gbytes_per_s")) {
    *gamma = 1.0 / (parse_option_number(prefix + "reduce_gbytes_per_s", *v, false) * 1e9);
  }
}

}  // namespace strata::sdk
