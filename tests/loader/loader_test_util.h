// Helpers shared by the loader tests: where the fake plugins are, a Runtime
// that loads them next to the real plugins, the checks every refusal test
// makes (nothing left registered or mapped, the process still works), and
// scoped control of environment variables and of core's log.
#ifndef STRATA_TESTS_LOADER_LOADER_TEST_UTIL_H_
#define STRATA_TESTS_LOADER_LOADER_TEST_UTIL_H_

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/collective/collective_ops.h"
#include "core/runtime/runtime.h"
#include "tests/common/log_capture.h"

namespace strata::loader_test {

namespace fs = std::filesystem;

// The algorithm every "the process still works" check runs.
inline constexpr std::string_view kRealAllReduce = "hierarchical_copy/all_reduce/hierarchical";
inline constexpr int kReplicas = 4;
inline constexpr uint64_t kCount = 8;

// tests/loader's build directory of one variant, and its library.
fs::path fake_dir(std::string_view variant);
fs::path fake_file(std::string_view variant, std::string_view stem = {});

// A Runtime with the real plugins (install dir) and the fakes in `dirs`
// (as plugins.path of the config); the environment is ignored unless asked.
std::shared_ptr<Runtime> make_runtime(const std::vector<fs::path>& dirs, Config config = {},
                                      bool use_environment = false);

// The one record of `file`; fails the test when there are none or several.
const PluginRecord* record_of(const Runtime& runtime, const fs::path& file);

// Nothing `plugin` registered survives: no tables, no algorithm ids under
// "<plugin>/", and (when given) its library is no longer mapped.
void expect_nothing_left(const Runtime& runtime, const std::string& plugin,
                         const fs::path& file = {});

// Is this library mapped into the process (/proc/self/maps)?
bool is_mapped(const fs::path& file);

// A team over cpu:0..kReplicas-1.
std::unique_ptr<CollectiveOps> make_ops(const std::shared_ptr<Runtime>& runtime,
                                        CommunicationOptions options = {});

// One in-place f32 sum all-reduce of kCount elements per replica through
// `algorithm` (empty: the selector's choice); checks the sums when it is OK.
Status all_reduce_via(CollectiveOps& ops, std::string_view algorithm,
                      const CallOptions& options = {});

// The refusal tests' last word: a real all-reduce through hierarchical_copy
// still works on a fresh team of the same Runtime.
void expect_real_all_reduce_works(const std::shared_ptr<Runtime>& runtime);

// Loads the fake `variant` next to the real plugins and checks what every
// refusal must leave: one record, refused, one log line with the reason,
// nothing of plugin `name` (default fake_<variant>) registered or mapped,
// and a working real all-reduce in the same Runtime. Returns the reason.
std::string expect_refused(std::string_view variant, std::string name = {});

// Sets (or, with nullopt, unsets) one environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// Core's log lines while alive (tests/common/log_capture.h).
using strata::testing::LogCapture;

}  // namespace strata::loader_test

#endif  // STRATA_TESTS_LOADER_LOADER_TEST_UTIL_H_
