// Helpers shared by the resolver tests: environments made of maps, and a
// Registry holding resolvers registered in-process (no loader), so a test
// sees exactly the resolvers it added.
#ifndef STRATA_TESTS_RESOLVERS_RESOLVER_TEST_UTIL_H_
#define STRATA_TESTS_RESOLVERS_RESOLVER_TEST_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster/resolvers/map_environment.h"
#include "core/cluster/resolvers/simple_resolver.h"
#include "core/cluster/resolvers/slurm_resolver.h"
#include "core/cluster/resolvers/tf_config_resolver.h"
#include "core/common/status.h"
#include "core/plugin/registry.h"
#include "strata/sdk/error.h"
#include "strata/sdk/resolver.h"

namespace strata::testing {

using Variables = std::map<std::string, std::string, std::less<>>;

inline std::shared_ptr<const Environment> env_of(Variables variables) {
  return std::make_shared<MapEnvironment>(std::move(variables));
}

// The message of a failed result; a marker that no test expects when the
// call unexpectedly succeeded, so EXPECT_EQ on it fails with a clear diff.
template <class T>
std::string error_of(const StatusOr<T>& result) {
  return result.ok() ? "<succeeded, but an error was expected>" : result.status().message();
}

// An sdk::Resolver whose behaviour is a lambda: what a plugin author writes.
class LambdaResolver final : public sdk::Resolver {
 public:
  LambdaResolver(std::string name, std::function<void(sdk::ClusterSink&)> body)
      : Resolver(std::move(name), "test resolver"), body_(std::move(body)) {}
  void resolve(sdk::ClusterSink& sink) override { body_(sink); }

 private:
  std::function<void(sdk::ClusterSink&)> body_;
};

// A resolver that answers one worker task of `size`, or declines.
inline std::unique_ptr<sdk::Resolver> answering(std::string name, int size, int index) {
  return std::make_unique<LambdaResolver>(name, [name, size, index](sdk::ClusterSink& sink) {
    for (int i = 0; i < size; ++i) {
      sink.add_task("worker", i, name + "-host" + std::to_string(i) + ":7000");
    }
    sink.set_self("worker", index);
  });
}

inline std::unique_ptr<sdk::Resolver> declining(std::string name) {
  return std::make_unique<LambdaResolver>(
      name, [name](sdk::ClusterSink&) { throw sdk::NotSupported(name + " finds nothing here"); });
}

// A Registry plus the resolver objects its tables point into.
class ResolverRegistry {
 public:
  Status add(std::string_view plugin, std::unique_ptr<sdk::Resolver> resolver) {
    const strata_resolver_t table = resolver->table();
    kept_.push_back(std::move(resolver));
    return registry_.add_resolver(plugin, table);
  }
  Status add_table(std::string_view plugin, const strata_resolver_t& table) {
    return registry_.add_resolver(plugin, table);
  }
  // tf_config, slurm and simple under plugin "core", reading `variables`.
  Status add_builtins(Variables variables) {
    auto env = env_of(std::move(variables));
    STRATA_RETURN_IF_ERROR(add("core", std::make_unique<TfConfigResolver>(env)));
    STRATA_RETURN_IF_ERROR(add("core", std::make_unique<SlurmResolver>(env)));
    return add("core", std::make_unique<SimpleResolver>(env));
  }
  Registry& registry() { return registry_; }

 private:
  Registry registry_;
  std::vector<std::unique_ptr<sdk::Resolver>> kept_;
};

}  // namespace strata::testing

#endif  // STRATA_TESTS_RESOLVERS_RESOLVER_TEST_UTIL_H_
