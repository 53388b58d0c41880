// Where resolvers read their variables. Tests hand in a MapEnvironment
// instead of calling setenv, so cases stay independent and can run in any
// order; production code uses the process's own environment.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/status.h"

namespace strata {

class Environment {
 public:
  virtual ~Environment() = default;

  // The raw value; nullopt when the variable is unset.
  virtual std::optional<std::string> get(std::string_view name) const = 0;

  // The value without surrounding whitespace; nullopt when unset or blank,
  // because `export TF_CONFIG=` is how people switch a variable off.
  std::optional<std::string> find(std::string_view name) const;
};

// The process's environment (getenv). Shared, so resolvers may keep it.
std::shared_ptr<const Environment> process_environment();

// The integer `text` read from variable `name`, within [min, max]. The
// error names the variable, quotes the value and gives the range.
StatusOr<int> parse_int_variable(std::string_view name, std::string_view text, int min, int max);

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_ENVIRONMENT_H_
