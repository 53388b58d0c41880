// An environment made of a map: what tests (and embedders that read their
// cluster description from somewhere other than the process) hand to the
// resolvers instead of setenv.
#ifndef STRATA_CORE_CLUSTER_RESOLVERS_MAP_ENVIRONMENT_H_
#define STRATA_CORE_CLUSTER_RESOLVERS_MAP_ENVIRONMENT_H_

#include <map>
#include <string>
#include <utility>

#include "core/cluster/resolvers/environment.h"

namespace strata {

class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string, std::less<>> values)
      : values_(std::move(values)) {}

  std::optional<std::string> get(std::string_view name) const override {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  void set(std::string name, std::string value) { values_[std::move(name)] = std::move(value); }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace strata

#endif  // STRATA_CORE_CLUSTER_RESOLVERS_MAP_ENVIRONMENT_H_
